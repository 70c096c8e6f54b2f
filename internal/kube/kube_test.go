package kube

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Decode splits a manifest stream and decodes each document strictly into
// its Kubernetes API type: an unknown or misspelt field fails.
func Decode(t testing.TB, b []byte) (*corev1.ConfigMap, *batchv1.Job) {
	t.Helper()
	var cm *corev1.ConfigMap
	var job *batchv1.Job
	for _, doc := range bytes.Split(b, []byte("\n---\n")) {
		var head struct{ Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatal(err)
		}
		switch head.Kind {
		case "ConfigMap":
			cm = &corev1.ConfigMap{}
			if err := yaml.UnmarshalStrict(doc, cm); err != nil {
				t.Fatalf("ConfigMap: %v", err)
			}
		case "Job":
			job = &batchv1.Job{}
			if err := yaml.UnmarshalStrict(doc, job); err != nil {
				t.Fatalf("Job: %v", err)
			}
		default:
			t.Fatalf("unexpected document of kind %q:\n%s", head.Kind, doc)
		}
	}
	if cm == nil || job == nil {
		t.Fatalf("want a ConfigMap and a Job:\n%s", b)
	}
	return cm, job
}

func reference() JobSpec {
	return JobSpec{
		Name: "ycsb-a", Namespace: "bench", Image: "ghcr.io/docbench/docbench:v1.0.0",
		Target:    "postgres://bench:s3cr%40t@db.bench.svc:5432/bench?sslmode=disable",
		Workloads: []string{"workloada", "testdata/mixed.properties"},
		Props:     []string{"document.shape=complex", "label=shard run", "fieldcount=20"},
		Shards:    4,
		StartAt:   time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC),
		Args:      []string{"--threads", "8", "--rate", "20000", "--duration", "5m0s"},
	}
}

func TestManifestsGolden(t *testing.T) {
	b, err := Manifests(reference())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "job.golden")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("manifests differ from %s (go test -update to accept):\n%s", golden, b)
	}
}

func TestManifestsDecodeStrictly(t *testing.T) {
	o := reference()
	b, err := Manifests(o)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("s3cr")) {
		t.Fatal("the password is in the manifests")
	}
	cm, job := Decode(t, b)
	if cm.Name != "ycsb-a-workload" || cm.Namespace != "bench" || job.Namespace != "bench" {
		t.Errorf("names: %s/%s, %s/%s", cm.Namespace, cm.Name, job.Namespace, job.Name)
	}
	if !strings.Contains(cm.Data["mixed.properties"], "requestdistribution=zipfian") ||
		!strings.Contains(cm.Data[PropertiesFile], "label=shard run") {
		t.Errorf("ConfigMap data: %v", cm.Data)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion ||
		*s.Completions != 4 || *s.Parallelism != 4 || *s.BackoffLimit != 0 {
		t.Errorf("job spec: %+v", s)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever || pod.SecurityContext == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("pod spec: %+v", pod)
	}
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{
		"run -t postgres://bench:$(DOCBENCH_PASSWORD)@db.bench.svc:5432/bench?sslmode=disable",
		"-P workloada -P /etc/docbench/mixed.properties -P /etc/docbench/docbench.properties",
		"--threads 8 --rate 20000 --duration 5m0s",
		"--shard auto/4 --start-at 2026-11-23T09:00:00Z --format jsonl",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q: %s", want, args)
		}
	}
	if len(c.Env) != 1 || c.Env[0].Name != PasswordEnv || c.Env[0].ValueFrom.SecretKeyRef.Name != "ycsb-a-target" ||
		c.Env[0].ValueFrom.SecretKeyRef.Key != "password" {
		t.Errorf("env: %+v", c.Env)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != MountDir || pod.Volumes[0].ConfigMap.Name != cm.Name {
		t.Errorf("mounts: %+v %+v", c.VolumeMounts, pod.Volumes)
	}
}

// The strict decoder does fail on an unknown field (the tests above would
// otherwise prove nothing).
func TestStrictDecodingCatchesUnknownFields(t *testing.T) {
	b, err := Manifests(reference())
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b, []byte("completionMode: Indexed"), []byte("completionMode: Indexed\n  completionMod: Indexed"), 1)
	job := &batchv1.Job{}
	doc := bad[bytes.Index(bad, []byte("apiVersion: batch/v1")):]
	if err := yaml.UnmarshalStrict(doc, job); err == nil {
		t.Fatal("an unknown field decoded without error")
	}
}

func TestTargetForPod(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@h:5432/db":                      "postgres://u:$(DOCBENCH_PASSWORD)@h:5432/db",
		"postgres://u:p%40ss@h/db?sslmode=require":      "postgres://u:$(DOCBENCH_PASSWORD)@h/db?sslmode=require",
		"mongodb://u:p@h1:27017,h2:27017/?replicaSet=x": "mongodb://u:$(DOCBENCH_PASSWORD)@h1:27017,h2:27017/?replicaSet=x",
		"mysql://root@h:3306/bench":                     "mysql://root@h:3306/bench",
		"null:":                                         "null:",
	} {
		if got := targetForPod(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	o := reference()
	o.Name, o.Shards, o.Image, o.Target = "Bad_Name", 0, "", "postgres:embedded"
	err := o.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`--name "Bad_Name"`, "--shards 0", "--image", "-t postgres:embedded: this target would run inside each pod"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	o = reference()
	o.Target = "postgres://u@h/db?password=x"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "not as ?password=") {
		t.Errorf("password in the query: %v", err)
	}
}

func TestEscapeProperty(t *testing.T) {
	got := escapeProperty("label=a b\\c")
	if got != `label=a b\\c` {
		t.Errorf("%s", got)
	}
	if !slices.Contains([]string{"a\\:b=c"}, escapeProperty("a:b=c")) {
		t.Errorf("%s", escapeProperty("a:b=c"))
	}
}
