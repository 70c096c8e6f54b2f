package server

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ulikunitz/xz"
)

// defaultMavenRepo is the Maven repository the zonky PostgreSQL binaries are
// downloaded from; $DOCBENCH_MAVEN_REPO names another (a mirror, a proxy
// repository of the user's own).
const defaultMavenRepo = "https://repo1.maven.org/maven2"

// mavenBase is where the zonky PostgreSQL binary artifacts are published.
func mavenBase() string {
	repo := os.Getenv("DOCBENCH_MAVEN_REPO")
	if repo == "" {
		repo = defaultMavenRepo
	}
	return strings.TrimRight(repo, "/") + "/io/zonky/test/postgres"
}

// httpClient downloads the binaries (a variable so tests can cut the network).
var httpClient = http.DefaultClient

// zonkyPlatform names the zonky artifact suffix for this OS/architecture.
func zonkyPlatform() (string, error) {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		return "linux-amd64", nil
	case "linux/arm64":
		return "linux-arm64v8", nil
	case "darwin/amd64":
		return "darwin-amd64", nil
	case "darwin/arm64":
		return "darwin-arm64v8", nil
	}
	return "", fmt.Errorf("no zonky PostgreSQL binaries for %s/%s", runtime.GOOS, runtime.GOARCH)
}

// artifactURL returns the Maven Central URL of the zonky binaries jar.
func artifactURL(version string) (string, error) {
	plat, err := zonkyPlatform()
	if err != nil {
		return "", err
	}
	a := "embedded-postgres-binaries-" + plat
	return fmt.Sprintf("%s/%s/%s/%s-%s.jar", mavenBase(), a, version, a, version), nil
}

// embeddedBinaries returns the bin directory of zonky PostgreSQL version,
// downloading, verifying and extracting it into the cache on first use.
// The caller holds the cache lock.
func embeddedBinaries(ctx context.Context, root, version string, log io.Writer) (string, error) {
	dir := filepath.Join(root, "postgres-"+version)
	bin := filepath.Join(dir, "bin")
	if _, err := os.Stat(filepath.Join(bin, "postgres")); err == nil {
		return bin, nil
	}
	u, err := artifactURL(version)
	if err != nil {
		return "", err
	}
	start := time.Now()
	want, err := fetchSHA1(ctx, u+".sha1")
	if err != nil {
		return "", err
	}
	jar, err := os.CreateTemp(root, "download-*.jar")
	if err != nil {
		return "", err
	}
	defer os.Remove(jar.Name())
	defer jar.Close()
	got, size, err := download(ctx, u, jar, version, log)
	if err != nil {
		return "", err
	}
	if got != want {
		return "", fmt.Errorf("download %s: SHA-1 %s does not match published %s", u, got, want)
	}
	tmp, err := os.MkdirTemp(root, "extract-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // no-op after a successful rename
	if err := extractJar(jar.Name(), tmp); err != nil {
		return "", fmt.Errorf("extract %s: %w", u, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes 0700
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	if log != nil {
		fmt.Fprintf(log, "PostgreSQL %s ready in %s (%.1f MB downloaded, verified, extracted to %s)\n",
			version, time.Since(start).Round(time.Millisecond), float64(size)/1e6, dir)
	}
	return bin, nil
}

// get issues a GET and turns failures into one-line errors naming the URL.
func get(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the `Get "URL":` prefix; we name the URL ourselves
		}
		return nil, fmt.Errorf("download %s failed: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("download %s failed: HTTP %s", u, resp.Status)
	}
	return resp, nil
}

// fetchSHA1 reads a Maven .sha1 file ("hex" or "hex  filename").
func fetchSHA1(ctx context.Context, u string) (string, error) {
	resp, err := get(ctx, u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if err != nil {
		return "", fmt.Errorf("download %s failed: %w", u, err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || len(f[0]) != 40 {
		return "", fmt.Errorf("download %s: not a SHA-1 checksum: %q", u, b)
	}
	return strings.ToLower(f[0]), nil
}

// download copies u into w and returns the SHA-1 of the bytes and their count.
func download(ctx context.Context, u string, w io.Writer, version string, log io.Writer) (string, int64, error) {
	resp, err := get(ctx, u)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	if log != nil {
		size := "unknown size"
		if resp.ContentLength > 0 {
			size = fmt.Sprintf("%.0f MB", float64(resp.ContentLength)/1e6)
		}
		fmt.Fprintf(log, "downloading PostgreSQL %s (%s) from %s…\n", version, size, u)
	}
	h := sha1.New()
	n, err := io.Copy(io.MultiWriter(w, h), resp.Body)
	if err != nil {
		return "", n, fmt.Errorf("download %s failed: %w", u, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// extractJar unpacks the .txz inside the zonky jar into dst.
func extractJar(jarPath, dst string) error {
	zr, err := zip.OpenReader(jarPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".txz") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		xr, err := xz.NewReader(bufio.NewReaderSize(rc, 1<<20))
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if err := untar(tar.NewReader(xr), dst); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		return nil
	}
	return errors.New("no .txz archive in jar")
}

// untar writes a tar stream below dst, refusing paths that leave it.
func untar(tr *tar.Reader, dst string) error {
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(hdr.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("unsafe path %q", hdr.Name)
		}
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(hdr.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if filepath.IsAbs(hdr.Linkname) || !filepath.IsLocal(filepath.Join(filepath.Dir(name), hdr.Linkname)) {
				return fmt.Errorf("unsafe symlink %q -> %q", hdr.Name, hdr.Linkname)
			}
			if err := os.Symlink(hdr.Linkname, p); err != nil {
				return err
			}
		case tar.TypeLink:
			target := filepath.Clean(hdr.Linkname)
			if !filepath.IsLocal(target) {
				return fmt.Errorf("unsafe hard link %q -> %q", hdr.Name, hdr.Linkname)
			}
			if err := os.Link(filepath.Join(dst, target), p); err != nil {
				return err
			}
		}
	}
}
