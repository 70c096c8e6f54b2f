// Ref prints the YCSB 0.17.0 reference numbers hard-coded in key_test.go and
// generators_test.go. It is not part of the Go build (testdata is ignored).
//
// To reproduce:
//   mvn dependency:get -Dartifact=site.ycsb:core:0.17.0
//   mvn dependency:get -Dartifact=org.hdrhistogram:HdrHistogram:2.1.4
//   mvn dependency:get -Dartifact=org.apache.htrace:htrace-core4:4.1.0-incubating
//   CP=~/.m2/repository/site/ycsb/core/0.17.0/core-0.17.0.jar:~/.m2/repository/org/hdrhistogram/HdrHistogram/2.1.4/HdrHistogram-2.1.4.jar:~/.m2/repository/org/apache/htrace/htrace-core4/4.1.0-incubating/htrace-core4-4.1.0-incubating.jar
//   javac -cp $CP Ref.java && java -cp $CP:. Ref
//
// Frequencies are empirical (10^7 draws from ThreadLocalRandom) and vary in
// the last digit between runs.
import site.ycsb.*;
import site.ycsb.generator.*;
import site.ycsb.workloads.CoreWorkload;
import java.util.*;
import java.lang.reflect.*;

public class Ref {
  static class CW extends CoreWorkload {
    String key(long k) { return buildKeyName(k); }
  }
  static double f(Object o, String name) throws Exception {
    Field fl = ZipfianGenerator.class.getDeclaredField(name); fl.setAccessible(true); return ((Number) fl.get(o)).doubleValue();
  }
  static void zipf(String label, ZipfianGenerator z) throws Exception {
    System.out.printf("%s zetan=%s eta=%s alpha=%s zeta2theta=%s countforzeta=%d%n", label,
      Double.toString(f(z,"zetan")), Double.toString(f(z,"eta")), Double.toString(f(z,"alpha")), Double.toString(f(z,"zeta2theta")), (long) f(z,"countforzeta"));
  }
  public static void main(String[] a) throws Exception {
    long[] ks = {0,1,2,3,42,999,1000,123456789L,2147483647L,10000000000L,-1L,Long.MAX_VALUE};
    for (long k : ks) System.out.printf("fnv %d %d%n", k, Utils.fnvhash64(k));
    for (String order : new String[]{"hashed","ordered"}) for (int zp : new int[]{1,10,20,25}) {
      Properties p = new Properties();
      p.setProperty("insertorder", order); p.setProperty("zeropadding", ""+zp); p.setProperty("recordcount","1000"); p.setProperty("operationcount","1000");
      site.ycsb.measurements.Measurements.setProperties(p);
      CW cw = new CW(); cw.init(p);
      for (long k : new long[]{0,1,42,999,123456789L}) System.out.printf("key %s %d %d %s%n", order, zp, k, cw.key(k));
    }
    zipf("zipf1000", new ZipfianGenerator(1000));
    zipf("zipf1_100", new ZipfianGenerator(1, 100));
    ZipfianGenerator z = new ZipfianGenerator(999);
    z.nextValue();
    Method nl = ZipfianGenerator.class.getDeclaredMethod("nextLong", long.class); nl.setAccessible(true);
    nl.invoke(z, 1500L);
    zipf("zipf999_grown1500", z);
    ScrambledZipfianGenerator sz = new ScrambledZipfianGenerator(0, 999);
    Field g = ScrambledZipfianGenerator.class.getDeclaredField("gen"); g.setAccessible(true);
    zipf("scrambled_gen", (ZipfianGenerator) g.get(sz));
    int N = 10000000;
    // empirical
    long[] c = new long[1000];
    for (int i = 0; i < N; i++) c[(int) (long) sz.nextValue()]++;
    top("scrambled0_999", c, N);
    c = new long[1000];
    ZipfianGenerator zz = new ZipfianGenerator(0, 999);
    for (int i = 0; i < N; i++) c[(int) (long) zz.nextValue()]++;
    top("zipfian0_999", c, N);
    AcknowledgedCounterGenerator ack = new AcknowledgedCounterGenerator(1000);
    SkewedLatestGenerator sl = new SkewedLatestGenerator(ack);
    c = new long[1000];
    for (int i = 0; i < N; i++) c[(int) (long) sl.nextValue()]++;
    top("latest1000", c, N);
    HotspotIntegerGenerator h = new HotspotIntegerGenerator(0, 999, 0.2, 0.8);
    long hot = 0; for (int i = 0; i < N; i++) if (h.nextValue() < 200) hot++;
    System.out.printf("hotspot hotfrac=%.5f%n", hot/(double)N);
    ExponentialGenerator e = new ExponentialGenerator(95, 1000 * 0.8571428571);
    long in = 0; for (int i = 0; i < N; i++) if (e.nextValue().intValue() < 857) in++;
    System.out.printf("exponential below857=%.5f%n", in/(double)N);
    // ack counter
    AcknowledgedCounterGenerator ac = new AcknowledgedCounterGenerator(10);
    long[] vals = new long[5]; for (int i = 0; i < 5; i++) vals[i] = ac.nextValue();
    System.out.printf("ack start last=%d vals=%s%n", ac.lastValue(), Arrays.toString(vals));
    ac.acknowledge(11); System.out.printf("ack after 11 last=%d%n", ac.lastValue());
    ac.acknowledge(10); System.out.printf("ack after 10 last=%d%n", ac.lastValue());
    ac.acknowledge(13); System.out.printf("ack after 13 last=%d%n", ac.lastValue());
    ac.acknowledge(12); System.out.printf("ack after 12 last=%d%n", ac.lastValue());
  }
  static void top(String label, long[] c, int n) {
    Integer[] idx = new Integer[c.length]; for (int i = 0; i < c.length; i++) idx[i] = i;
    Arrays.sort(idx, (x, y) -> Long.compare(c[y], c[x]));
    StringBuilder sb = new StringBuilder(label);
    for (int i = 0; i < 5; i++) sb.append(String.format(" %d:%.5f", idx[i], c[idx[i]] / (double) n));
    System.out.println(sb);
  }
}
