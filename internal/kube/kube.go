// Package kube writes the Kubernetes manifests of a sharded docbench run:
// a ConfigMap holding the workload files and properties, and an Indexed Job
// whose N pods each run one shard (docbench run --shard auto/N) from the
// same wall-clock instant and print their result as the last line of their
// log, for `docbench merge` to combine. The database password comes from a
// Kubernetes Secret through an environment variable; it never appears in
// the manifests.
package kube

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/workloads"
)

// MountDir is where the pods see the ConfigMap's files.
const MountDir = "/etc/docbench"

// PasswordEnv is the variable the pods read the target's password from;
// the target in the manifest refers to it as $(DOCBENCH_PASSWORD), which
// Kubernetes expands in a container's arguments.
const PasswordEnv = "DOCBENCH_PASSWORD"

// PropertiesFile is the ConfigMap key holding the -p properties.
const PropertiesFile = "docbench.properties"

// fileProperties are properties whose value is a file the pods must see.
var fileProperties = []string{"document.sample", "document.replay", "fieldlengthhistogram", "querymix"}

// JobSpec describe the Job to write.
type JobSpec struct {
	Name      string // Job name (also prefixes the ConfigMap and Secret)
	Namespace string // "" = the namespace kubectl applies to
	Image     string
	Target    string   // as the user gave it, password included
	Workloads []string // -P arguments: built-in names or local files
	Props     []string // -p key=value, in order
	// FileProps are the effective values of properties naming files
	// (document.sample, …), whether set by -P files or -p.
	FileProps map[string]string
	Shards    int
	StartAt   time.Time
	// Command is the docbench command each pod runs: "run" (default) or
	// "capacity" (a sharded capacity search: every pod runs the ladder).
	Command string
	// Args are further arguments of the command (--threads 8, --rate …).
	Args []string
	// ReadFile reads local files (os.ReadFile when nil).
	ReadFile func(string) ([]byte, error)
}

// SecretName is the name of the Secret holding the target's password.
func (o *JobSpec) SecretName() string { return o.Name + "-target" }

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Validate reports every problem of o at once.
func (o *JobSpec) Validate() error {
	var errs []error
	if len(o.Name) > 52 || !dnsLabel.MatchString(o.Name) { // the Job controller adds suffixes to pod names
		errs = append(errs, fmt.Errorf("--name %q: want a DNS label of at most 52 characters (a-z, 0-9, -)", o.Name))
	}
	if o.Shards < 1 {
		errs = append(errs, fmt.Errorf("--shards %d: want at least 1", o.Shards))
	}
	if o.Image == "" {
		errs = append(errs, errors.New("--image: no image (this docbench is a development build with no published image; build one from the Dockerfile and name it)"))
	}
	if o.Namespace != "" && !dnsLabel.MatchString(o.Namespace) {
		errs = append(errs, fmt.Errorf("--namespace %q: not a valid namespace name", o.Namespace))
	}
	switch {
	case o.Target == "":
		errs = append(errs, errors.New("-t: no target"))
	case db.IsLocal(o.Target):
		errs = append(errs, fmt.Errorf("-t %s: this target would run inside each pod; give the URL of a server the pods can reach", redactedTarget(o.Target)))
	}
	if u, err := url.Parse(o.Target); err == nil && u.Query().Has("password") {
		errs = append(errs, errors.New("-t: give the password in the URL's user part (user:password@host), not as ?password=: it is moved into a Secret from there"))
	}
	return errors.Join(errs...)
}

// Manifests writes the ConfigMap and the Job as one YAML stream.
func Manifests(o JobSpec) ([]byte, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	files := &configFiles{read: o.ReadFile, data: map[string]string{}, used: map[string]bool{PropertiesFile: true}}
	if files.read == nil {
		files.read = os.ReadFile
	}
	args, err := podArgs(o, files)
	if err != nil {
		return nil, err
	}
	size := 0
	for _, v := range files.data {
		size += len(v)
	}
	if size > 1000*1000 {
		return nil, fmt.Errorf("workload files of %d bytes: a ConfigMap holds at most 1 MiB; build them into the image instead", size)
	}
	cmName := o.Name + "-workload"
	var env []envVar
	if hasPassword(o.Target) {
		env = append(env, envVar{Name: PasswordEnv, ValueFrom: &envSource{SecretKeyRef: &keyRef{Name: o.SecretName(), Key: "password"}}})
	}
	cm := configMap{APIVersion: "v1", Kind: "ConfigMap", Metadata: o.meta(cmName), Data: files.data}
	return writeManifests(o, cm, indexedJob(o, cmName, args, env), len(env) > 0)
}

// configFiles are the files the pods see, as the ConfigMap's data.
type configFiles struct {
	read func(string) ([]byte, error)
	data map[string]string // by ConfigMap key
	used map[string]bool   // ConfigMap keys taken
}

// add puts a local file in the ConfigMap and returns its path in the pods.
func (c *configFiles) add(local string) (string, error) {
	b, err := c.read(local)
	if err != nil {
		return "", fmt.Errorf("%s: %w", local, err)
	}
	key := configKey(path.Base(strings.ReplaceAll(local, "\\", "/")), c.used)
	c.data[key] = string(b)
	return MountDir + "/" + key, nil
}

// podArgs are the arguments of `docbench run` (or capacity) in each pod; the workload
// files, the -p properties and the files they name go into files.
func podArgs(o JobSpec, files *configFiles) ([]string, error) {
	command := o.Command
	if command == "" {
		command = "run"
	}
	args := []string{command, "-t", targetForPod(o.Target)}
	for _, w := range o.Workloads {
		if _, err := os.Stat(w); err != nil {
			name := strings.TrimPrefix(strings.TrimPrefix(w, "./"), "workloads/")
			if _, ok := workloads.Lookup(name); ok {
				args = append(args, "-P", name) // built into the binary
				continue
			}
		}
		p, err := files.add(w)
		if err != nil {
			return nil, fmt.Errorf("-P %w", err)
		}
		args = append(args, "-P", p)
	}
	var props strings.Builder
	props.WriteString("# -p properties of `docbench kube job`\n")
	for _, kv := range o.Props {
		props.WriteString(escapeProperty(kv) + "\n")
	}
	for _, k := range fileProperties {
		v, ok := o.FileProps[k]
		if !ok || v == "" {
			continue
		}
		if _, err := os.Stat(v); err != nil {
			continue // not a local file: the image must have it
		}
		p, err := files.add(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		props.WriteString(escapeProperty(k+"="+p) + "\n")
	}
	files.data[PropertiesFile] = props.String()
	args = append(args, "-P", MountDir+"/"+PropertiesFile)
	args = append(args, o.Args...)
	args = append(args, "--shard", "auto/"+strconv.Itoa(o.Shards),
		"--start-at", o.StartAt.UTC().Format(time.RFC3339Nano), "--format", "jsonl")
	return args, nil
}

func (o *JobSpec) labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "docbench", "app.kubernetes.io/instance": o.Name}
}

func (o *JobSpec) meta(name string) objectMeta {
	return objectMeta{Name: name, Namespace: o.Namespace, Labels: o.labels()}
}

// indexedJob is the Job whose o.Shards pods each run one shard, unprivileged
// and with a read-only root file system.
func indexedJob(o JobSpec, cmName string, args []string, env []envVar) job {
	n := int32(o.Shards)
	zero := int32(0)
	no, yes := false, true
	uid := int64(65532)
	return job{
		APIVersion: "batch/v1", Kind: "Job", Metadata: o.meta(o.Name),
		Spec: jobSpec{
			CompletionMode: "Indexed", Completions: &n, Parallelism: &n,
			// A retried pod would start after the others and run its share
			// again: a failed shard fails the Job instead.
			BackoffLimit: &zero,
			Template: podTemplate{
				Metadata: objectMeta{Labels: o.labels()},
				Spec: podSpec{
					RestartPolicy:   "Never",
					SecurityContext: &podSecurity{RunAsNonRoot: &yes, RunAsUser: &uid, RunAsGroup: &uid},
					Containers: []container{{
						Name: "docbench", Image: o.Image, Command: []string{"docbench"}, Args: args, Env: env,
						VolumeMounts: []volumeMount{{Name: "workload", MountPath: MountDir, ReadOnly: true}},
						SecurityContext: &containerSecurity{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
							Capabilities: &capabilities{Drop: []string{"ALL"}}},
					}},
					Volumes: []volume{{Name: "workload", ConfigMap: &configMapSource{Name: cmName}}},
				},
			},
		},
	}
}

// writeManifests writes the comments that say how to apply and collect the
// run, then the ConfigMap and the Job.
func writeManifests(o JobSpec, cm configMap, j job, secret bool) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# docbench: a %d-shard run; every shard starts at %s (apply before then).\n",
		o.Shards, o.StartAt.UTC().Format(time.RFC3339))
	if secret {
		fmt.Fprintf(&buf, "# The target's password comes from Secret %s (key password), created beforehand\n", o.SecretName())
		fmt.Fprintf(&buf, "# with the password as the URL spells it (percent-encoded):\n")
		fmt.Fprintf(&buf, "#   kubectl create secret generic %s --from-literal=password='…'\n", o.SecretName())
	}
	fmt.Fprintf(&buf, "# Collect and merge the shard results when the Job is complete:\n")
	fmt.Fprintf(&buf, "#   %s\n", CollectCommand(o.Name, o.Namespace, o.Shards))
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(cm); err != nil {
		return nil, err
	}
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CollectCommand is the kubectl pipeline that merges a Job's shard results:
// every pod's log (its result is its last line) into docbench merge.
func CollectCommand(name, namespace string, shards int) string {
	ns := ""
	if namespace != "" {
		ns = " -n " + namespace
	}
	return fmt.Sprintf("kubectl logs%s -l app.kubernetes.io/instance=%s --prefix --tail=-1 --max-log-requests=%d | docbench merge - --out %s.json",
		ns, name, max(shards, 5), name)
}

// configKey makes a ConfigMap key of a file name, unique among used.
func configKey(base string, used map[string]bool) string {
	key := regexp.MustCompile(`[^-._a-zA-Z0-9]`).ReplaceAllString(base, "_")
	if key == "" || key == "." || key == ".." {
		key = "file"
	}
	k := key
	for i := 2; used[k]; i++ {
		k = strconv.Itoa(i) + "-" + key
	}
	used[k] = true
	return k
}

// escapeProperty writes key=value so that Java-properties parsing reads it back.
func escapeProperty(kv string) string {
	k, v, _ := strings.Cut(kv, "=")
	r := strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r", "\t", "\\t")
	k = strings.NewReplacer("\\", "\\\\", " ", "\\ ", ":", "\\:", "=", "\\=").Replace(strings.TrimSpace(k))
	return k + "=" + r.Replace(v)
}

// hasPassword reports whether a URL target carries a password.
func hasPassword(target string) bool {
	u, err := url.Parse(target)
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// targetForPod replaces the password of a URL target by a reference to
// PasswordEnv, which Kubernetes expands from the Secret.
func targetForPod(target string) string {
	if !hasPassword(target) {
		return target
	}
	i := strings.Index(target, "://")
	rest := target[i+3:]
	end := len(rest)
	if j := strings.IndexAny(rest, "/?"); j >= 0 {
		end = j
	}
	at := strings.LastIndex(rest[:end], "@")
	colon := strings.Index(rest[:at], ":")
	return target[:i+3] + rest[:colon+1] + "$(" + PasswordEnv + ")" + rest[at:]
}

// redactedTarget hides a password for messages.
func redactedTarget(target string) string {
	if !hasPassword(target) {
		return target
	}
	return strings.Replace(targetForPod(target), "$("+PasswordEnv+")", "***", 1)
}
