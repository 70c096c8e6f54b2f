package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/kube"
	"github.com/docbench/docbench/internal/merge"
	"github.com/docbench/docbench/internal/report"
)

// imageRepository is where release images are published; `kube job`
// defaults to the image of the running version.
const imageRepository = "ghcr.io/docbench/docbench"

func (a *app) kubeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kube",
		Short: "Run sharded load generation on Kubernetes (an Indexed Job) and collect its results",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(a.kubeJobCommand(), a.kubeCollectCommand())
	return cmd
}

func (a *app) kubeJobCommand() *cobra.Command {
	var (
		target, image, name, namespace, out string
		workloads, props                    []string
		shards, threads                     int
		startIn, duration, warmup           time.Duration
		rate                                float64
		seed                                uint64
		slos                                []string
		ladder, precision, maxErrorShare    string
		trial                               time.Duration
	)
	cmd := &cobra.Command{
		Use:   "job -t TARGET -P WORKLOAD [-p key=value]... --shards N [--image IMAGE] [--start-in 60s]",
		Short: "Write the manifests of an N-shard run: a ConfigMap and an Indexed Job",
		Long: `job writes a ConfigMap with the workload files and properties and an Indexed Job
(completionMode Indexed, completions = parallelism = N) whose pods each run
  docbench run --shard auto/N --start-at <now + --start-in> --format jsonl
so that all shards begin at the same instant and each prints its result as the
last line of its log. Apply them at once:
  docbench kube job -t postgres://bench:PASSWORD@db:5432/bench -P workloada --shards 4 | kubectl apply -f -
A password in the target is replaced by $(DOCBENCH_PASSWORD), read from the
Secret <name>-target (key password), which you create with kubectl beforehand;
it never appears in the manifests. Collect and merge with ` + "`docbench kube collect NAME`" + `
or the kubectl pipeline printed in the manifests' header.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := propsFromFlags(workloads, props)
			if err != nil {
				return err
			}
			if _, err := config(p); err != nil { // every problem here, not in N pods
				return err
			}
			if _, ok := p.Get("statement.file"); ok {
				return &ExitError{Code: exitUsage, Err: errors.New("statement.file: kube job does not ship statement files to the pods; run them with docbench run --shard")}
			}
			if !cmd.Flags().Changed("image") && Version != "dev" {
				image = imageRepository + ":" + Version
			}
			o := kube.JobSpec{Name: name, Namespace: namespace, Image: image, Target: target,
				Workloads: workloads, Props: props, Shards: shards, StartAt: time.Now().Add(startIn).Truncate(time.Second).Add(time.Second),
				FileProps: map[string]string{}}
			for _, k := range []string{"document.sample", "document.replay", "fieldlengthhistogram", "querymix"} {
				if v, ok := p.Get(k); ok {
					o.FileProps[k] = v
				}
			}
			fl := cmd.Flags()
			if fl.Changed("threads") {
				o.Args = append(o.Args, "--threads", strconv.Itoa(threads))
			}
			if len(slos) > 0 { // a sharded capacity search
				if fl.Changed("rate") || fl.Changed("duration") || ladder == "" {
					return &ExitError{Code: exitUsage, Err: errors.New("kube job --slo: a sharded capacity search takes --ladder LOW:HIGH and --trial, not --rate or --duration")}
				}
				o.Command = "capacity"
				for _, s := range slos {
					if _, err := engine.ParseSLO(s); err != nil {
						return &ExitError{Code: exitUsage, Err: err}
					}
					o.Args = append(o.Args, "--slo", s)
				}
				o.Args = append(o.Args, "--ladder", ladder, "--out", "", "--html", "")
				for _, f := range []struct{ name, value string }{{"precision", precision}, {"max-error-share", maxErrorShare}, {"trial", trial.String()}} {
					if fl.Changed(f.name) {
						o.Args = append(o.Args, "--"+f.name, f.value)
					}
				}
			}
			if fl.Changed("rate") {
				o.Args = append(o.Args, "--rate", strconv.FormatFloat(rate, 'f', -1, 64))
			}
			if fl.Changed("duration") {
				o.Args = append(o.Args, "--duration", duration.String())
			}
			if fl.Changed("warmup") {
				o.Args = append(o.Args, "--warmup", warmup.String())
			}
			if fl.Changed("seed") {
				o.Args = append(o.Args, "--seed", strconv.FormatUint(seed, 10))
			}
			b, err := kube.Manifests(o)
			if err != nil {
				return &ExitError{Code: 2, Err: fmt.Errorf("kube job: %w", oneLineErr(err))}
			}
			if out == "" {
				_, err = a.stdout.Write(b)
				return err
			}
			if err := report.WriteFileAtomic(out, b); err != nil {
				return fmt.Errorf("--out %s: %w", out, err)
			}
			fmt.Fprintf(a.stderr, "wrote %s: apply with kubectl apply -f %s\n", out, out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&target, "target", "t", "", "database target the pods reach (a URL; its password goes to a Secret)")
	fl.StringArrayVarP(&workloads, "workload", "P", nil, "workload file or built-in name; repeatable")
	fl.StringArrayVarP(&props, "property", "p", nil, "property key=value; repeatable")
	fl.IntVar(&shards, "shards", 0, "number of shards (pods)")
	fl.StringVar(&image, "image", "", "container image with docbench (default "+imageRepository+":VERSION of this docbench)")
	fl.DurationVar(&startIn, "start-in", 60*time.Second, "all shards start this long after the manifests are written")
	fl.StringVar(&name, "name", "docbench", "Job name; the ConfigMap is NAME-workload, the Secret NAME-target")
	fl.StringVarP(&namespace, "namespace", "n", "", "namespace (default: kubectl's)")
	fl.StringVar(&out, "out", "", "write the manifests to this file instead of standard output")
	fl.IntVar(&threads, "threads", 0, "client threads per shard")
	fl.Float64Var(&rate, "rate", 0, "target operations/s over all shards (each runs rate/N)")
	fl.DurationVar(&duration, "duration", 0, "stop each shard after this long")
	fl.DurationVar(&warmup, "warmup", 0, "warm-up per shard, discarded")
	fl.Uint64Var(&seed, "seed", 1, "seed of documents and key choices")
	fl.StringArrayVar(&slos, "slo", nil, "run a sharded capacity search (docbench capacity) with this SLO instead of a run; repeatable")
	fl.StringVar(&ladder, "ladder", "", "with --slo: the rates LOW:HIGH over all shards that every shard runs")
	fl.StringVar(&precision, "precision", "5%", "with --slo: the ladder's step")
	fl.StringVar(&maxErrorShare, "max-error-share", "0.1%", "with --slo: share of failed operations above which a trial fails")
	fl.DurationVar(&trial, "trial", 10*time.Second, "with --slo: measured length of each trial")
	_ = cmd.MarkFlagRequired("target")
	_ = cmd.MarkFlagRequired("workload")
	_ = cmd.MarkFlagRequired("shards")
	return cmd
}

func (a *app) kubeCollectCommand() *cobra.Command {
	var namespace, out, format, html string
	var shards int
	cmd := &cobra.Command{
		Use:   "collect NAME [-n NAMESPACE] [--out FILE] [--html FILE]",
		Short: "Read the shard results from the logs of Job NAME's pods (kubectl logs) and merge them",
		Long: `collect runs
  kubectl logs -l app.kubernetes.io/instance=NAME --prefix --tail=-1
and merges the results the pods printed, as docbench merge does (for a sharded
capacity search, with its HTML report and curve in --html). kubectl must be on
PATH and pointed at the cluster.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckFormat(format); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			kargs := []string{"logs", "-l", "app.kubernetes.io/instance=" + args[0], "--prefix", "--tail=-1",
				"--max-log-requests=" + strconv.Itoa(max(shards, 5))}
			if namespace != "" {
				kargs = append(kargs, "-n", namespace)
			}
			var stdout, stderr bytes.Buffer
			c := exec.CommandContext(cmd.Context(), "kubectl", kargs...)
			c.Stdout, c.Stderr = &stdout, &stderr
			if err := c.Run(); err != nil {
				return fmt.Errorf("kubectl %s: %v: %s", strings.Join(kargs, " "), err, strings.TrimSpace(stderr.String()))
			}
			in, err := merge.Read(stdout.Bytes(), "logs of "+args[0])
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			res, err := merge.Merge(in)
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if out == "" {
				out = args[0] + ".json"
			}
			if err := a.emit(res, format, out); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "merged %d shard result(s) into %s\n", len(in), out)
			if html == "" && !cmd.Flags().Changed("html") {
				html = args[0] + ".html"
			}
			if err := a.writeCapacityHTML(res, html); err != nil {
				return err
			}
			if !res.Complete {
				return &ExitError{Code: 1, Err: errors.New("merged result incomplete: " + res.Error)}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "namespace of the Job")
	cmd.Flags().StringVar(&out, "out", "", "merged result file (default NAME.json)")
	cmd.Flags().StringVar(&format, "format", "text", "report format on stdout: text, ycsb, json or jsonl")
	cmd.Flags().IntVar(&shards, "shards", 0, "number of shards, when more than 5 (kubectl's --max-log-requests)")
	cmd.Flags().StringVar(&html, "html", "", "for a sharded capacity search: its HTML report with the latency-vs-throughput curve (default NAME.html)")
	return cmd
}

// oneLineErr joins the lines of a multi-problem error with "; ".
func oneLineErr(err error) error {
	return errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
}
