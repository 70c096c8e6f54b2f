package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/docbench/docbench/internal/kube"
	"github.com/docbench/docbench/internal/merge"
	"github.com/docbench/docbench/internal/testutil"
)

// decodeManifests decodes `kube job` output strictly into the API types.
func decodeManifests(t *testing.T, b []byte) (*corev1.ConfigMap, *batchv1.Job) {
	t.Helper()
	var cm corev1.ConfigMap
	var job batchv1.Job
	docs := bytes.Split(b, []byte("\n---\n"))
	if len(docs) != 2 {
		t.Fatalf("want 2 documents, got %d", len(docs))
	}
	if err := yaml.UnmarshalStrict(docs[0], &cm); err != nil || cm.Kind != "ConfigMap" {
		t.Fatalf("ConfigMap: %v", err)
	}
	if err := yaml.UnmarshalStrict(docs[1], &job); err != nil || job.Kind != "Job" {
		t.Fatalf("Job: %v", err)
	}
	return &cm, &job
}

var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// The path a user takes on a cluster, simulated locally: `kube job` writes
// the manifests; the ConfigMap's files are put where the pods would see
// them; each pod's exact command line runs as a process with
// JOB_COMPLETION_INDEX set and the Secret's password in its environment
// (Kubernetes expands $(VAR) in arguments; so does this test); their
// combined output stands for `kubectl logs --prefix`; `docbench merge`
// reads it.
func TestKubeJobSimulated(t *testing.T) {
	bin := binary(t)
	server := testutil.Postgres(t, "embedded")
	db := testutil.FreshDatabase(t, server)
	const password = "s3cr%40t" // the managed server trusts local connections: any password works
	target := strings.Replace(db, "postgres://postgres@", "postgres://postgres:"+password+"@", 1)
	if target == db {
		t.Fatalf("unexpected test server URL %s", db)
	}
	if _, stderr, code := docbench(t, "load", "-t", target, "-P", "workloadb", "-p", "recordcount=800", "--status", "0"); code != 0 {
		t.Fatalf("load: %s", stderr)
	}
	const n = 3
	out, stderr, code := docbench(t, "kube", "job", "-t", target, "-P", "workloadb", "-p", "recordcount=800",
		"-p", "operationcount=1800", "--shards", fmt.Sprint(n), "--threads", "2", "--image", "docbench:test",
		"--start-in", "2s", "--name", "sim")
	if code != 0 {
		t.Fatalf("kube job: %d %s", code, stderr)
	}
	if strings.Contains(out, password) || strings.Contains(out, "s3cr") {
		t.Fatal("the password is in the manifests")
	}
	cm, job := decodeManifests(t, []byte(out))
	mount := t.TempDir()
	for k, v := range cm.Data {
		if err := os.WriteFile(filepath.Join(mount, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := job.Spec.Template.Spec.Containers[0]
	if *job.Spec.Completions != n || *job.Spec.Parallelism != n || c.Command[0] != "docbench" {
		t.Fatalf("job: completions %d parallelism %d command %v", *job.Spec.Completions, *job.Spec.Parallelism, c.Command)
	}
	secret := map[string]string{"password": password}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = secret[e.ValueFrom.SecretKeyRef.Key]
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		a = envRef.ReplaceAllStringFunc(a, func(m string) string { return env[envRef.FindStringSubmatch(m)[1]] })
		args[i] = strings.Replace(a, kube.MountDir, mount, 1) // the volume mount
	}

	var logs bytes.Buffer
	var mu sync.Mutex
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k))
			for name, v := range env {
				cmd.Env = append(cmd.Env, name+"="+v)
			}
			b, err := cmd.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("pod %d: %v\n%s", k, err, b)
			}
			for _, line := range strings.SplitAfter(strings.TrimRight(string(b), "\n"), "\n") {
				fmt.Fprintf(&logs, "[pod/sim-%d-abcde/docbench] %s", k, strings.TrimSuffix(line, "\n")+"\n")
			}
		})
	}
	wg.Wait()
	logFile := filepath.Join(t.TempDir(), "logs.txt")
	if err := os.WriteFile(logFile, logs.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(t.TempDir(), "sim.json")
	if _, stderr, code := docbench(t, "merge", logFile, "--out", merged); code != 0 {
		t.Fatalf("merge: %d %s\n%s", code, stderr, logs.String())
	}
	m := readResult(t, merged)
	if !m.Complete || m.Operations != 1800 || len(m.Shards) != n {
		t.Fatalf("merged: complete %v operations %d shards %d", m.Complete, m.Operations, len(m.Shards))
	}
	for _, s := range m.Shards {
		if s.LateMS == nil || !strings.HasPrefix(s.Source, fmt.Sprintf("pod/sim-%d-", s.Index)) {
			t.Errorf("shard %d: source %q late %v", s.Index, s.Source, s.LateMS)
		}
	}
	if strings.Contains(m.Target.Target, "s3cr") {
		t.Errorf("merged target shows the password: %s", m.Target.Target)
	}
	in, err := merge.Read(logs.Bytes(), "logs")
	if err != nil || len(in) != n {
		t.Fatalf("read logs: %d results, %v", len(in), err)
	}
}

// kube collect runs kubectl logs for the Job's pods and merges what they
// printed. kubectl here is a script printing a log captured from pods
// (no cluster exists on the test machines): the test checks the command
// docbench runs and what it does with the output.
func TestKubeCollect(t *testing.T) {
	files := shards(t, t.TempDir(), 2, "run", "-t", "null:", "-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=200")
	dir := fakeKubectl(t, files)
	out := filepath.Join(dir, "merged.json")
	if _, stderr, code := docbench(t, "kube", "collect", "job", "-n", "bench", "--out", out); code != 0 {
		t.Fatalf("collect: %d %s", code, stderr)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if got := strings.TrimSpace(string(args)); got != "logs -l app.kubernetes.io/instance=job --prefix --tail=-1 --max-log-requests=5 -n bench" {
		t.Errorf("kubectl %s", got)
	}
	if m := readResult(t, out); !m.Complete || m.Operations != 200 {
		t.Errorf("merged: complete %v operations %d", m.Complete, m.Operations)
	}
}

// fakeKubectl puts on PATH a kubectl that records its arguments in
// DIR/args and prints the result files as the pods' logs (kubectl logs
// --prefix), each after a status line; it returns DIR.
func fakeKubectl(t *testing.T, files []string) string {
	t.Helper()
	dir := t.TempDir()
	var logs bytes.Buffer
	for k, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var line bytes.Buffer
		if err := json.Compact(&line, b); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&logs, "[pod/job-%d-x/docbench] status line\n[pod/job-%d-x/docbench] %s\n", k, k, line.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "logs"), logs.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$@\" > " + filepath.Join(dir, "args") + "\ncat " + filepath.Join(dir, "logs") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}
