package docbench.mongopeer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;

/**
 * docbench's MongoDB wire-protocol peer for tests: mongo-java-server with its
 * in-memory backend. It is a protocol peer, never a performance reference.
 *
 * <p>mongo-java-server 1.47.0 reports maxWireVersion 8, which mongo-driver
 * v2.9 refuses, and does not know {@code hello}. {@link Backend} reports
 * wire version 13 (MongoDB 5.0) and answers {@code hello} like
 * {@code isMaster}.
 *
 * <p>Usage: {@code java -jar mongo-peer.jar [--host H] [--port P] [--ready FILE]
 * [--exit-on-stdin-eof]}. Port 0 (the default) binds a free port; the port
 * bound is written to FILE (atomically, once listening) and printed on
 * stdout. With --exit-on-stdin-eof the peer exits when its standard input
 * closes, i.e. when the process that started it is gone.
 */
public final class MongoPeer {

    /** The wire version reported: 13 is MongoDB 5.0. */
    static final int WIRE_VERSION = 13;

    /** MemoryBackend that mongo-driver v2.9 accepts. */
    static final class Backend extends MemoryBackend {
        @Override
        public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
            boolean hello = command.equalsIgnoreCase("hello");
            if (hello || command.equalsIgnoreCase("ismaster")) {
                Document response = super.handleCommand(channel, databaseName, "isMaster", query);
                response.put("maxWireVersion", Integer.valueOf(WIRE_VERSION));
                if (hello) {
                    response.put("isWritablePrimary", Boolean.TRUE);
                }
                return response;
            }
            return super.handleCommand(channel, databaseName, command, query);
        }
    }

    private MongoPeer() {
    }

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 0;
        Path ready = null;
        boolean exitOnEOF = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--host" -> host = value(args, ++i);
                case "--port" -> port = Integer.parseInt(value(args, ++i));
                case "--ready" -> ready = Path.of(value(args, ++i));
                case "--exit-on-stdin-eof" -> exitOnEOF = true;
                default -> usage("unknown argument " + args[i]);
            }
        }

        MongoServer server = new MongoServer(new Backend());
        server.bind(new InetSocketAddress(host, port));
        InetSocketAddress bound = server.getLocalAddress();
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "mongo-peer-shutdown"));

        if (ready != null) {
            Path tmp = ready.resolveSibling(ready.getFileName() + ".tmp");
            Files.writeString(tmp, bound.getPort() + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE);
        }
        System.out.println("mongo-peer listening on " + bound.getHostString() + ":" + bound.getPort()
            + " (mongo-java-server, wire version " + WIRE_VERSION + ")");
        System.out.flush();

        if (exitOnEOF) {
            InputStream in = System.in;
            try {
                while (in.read() >= 0) {
                    // ignore input; wait for end of file
                }
            } catch (IOException e) {
                // a broken stdin means our parent is gone, too
            }
            System.exit(0);
        }
        Thread.currentThread().join();
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            usage(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static void usage(String problem) {
        System.err.println("mongo-peer: " + problem);
        System.err.println("usage: java -jar mongo-peer.jar [--host H] [--port P] [--ready FILE] [--exit-on-stdin-eof]");
        System.exit(2);
    }
}
