package kube

// The subset of the Kubernetes API the manifests use, with the API's field
// names (the tests decode the output strictly into k8s.io/api types).

type objectMeta struct {
	Name      string            `yaml:"name,omitempty"`
	Namespace string            `yaml:"namespace,omitempty"`
	Labels    map[string]string `yaml:"labels,omitempty"`
}

type configMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
}

type job struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       jobSpec    `yaml:"spec"`
}

type jobSpec struct {
	CompletionMode string      `yaml:"completionMode"`
	Completions    *int32      `yaml:"completions"`
	Parallelism    *int32      `yaml:"parallelism"`
	BackoffLimit   *int32      `yaml:"backoffLimit"`
	Template       podTemplate `yaml:"template"`
}

type podTemplate struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     podSpec    `yaml:"spec"`
}

type podSpec struct {
	RestartPolicy   string       `yaml:"restartPolicy"`
	SecurityContext *podSecurity `yaml:"securityContext,omitempty"`
	Containers      []container  `yaml:"containers"`
	Volumes         []volume     `yaml:"volumes,omitempty"`
}

type podSecurity struct {
	RunAsNonRoot *bool  `yaml:"runAsNonRoot,omitempty"`
	RunAsUser    *int64 `yaml:"runAsUser,omitempty"`
	RunAsGroup   *int64 `yaml:"runAsGroup,omitempty"`
}

type container struct {
	Name            string             `yaml:"name"`
	Image           string             `yaml:"image"`
	Command         []string           `yaml:"command,omitempty"`
	Args            []string           `yaml:"args,omitempty"`
	Env             []envVar           `yaml:"env,omitempty"`
	VolumeMounts    []volumeMount      `yaml:"volumeMounts,omitempty"`
	SecurityContext *containerSecurity `yaml:"securityContext,omitempty"`
}

type envVar struct {
	Name      string     `yaml:"name"`
	Value     string     `yaml:"value,omitempty"`
	ValueFrom *envSource `yaml:"valueFrom,omitempty"`
}

type envSource struct {
	SecretKeyRef *keyRef `yaml:"secretKeyRef,omitempty"`
}

type keyRef struct {
	Name string `yaml:"name"`
	Key  string `yaml:"key"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

type containerSecurity struct {
	AllowPrivilegeEscalation *bool         `yaml:"allowPrivilegeEscalation,omitempty"`
	ReadOnlyRootFilesystem   *bool         `yaml:"readOnlyRootFilesystem,omitempty"`
	Capabilities             *capabilities `yaml:"capabilities,omitempty"`
}

type capabilities struct {
	Drop []string `yaml:"drop,omitempty"`
}

type volume struct {
	Name      string           `yaml:"name"`
	ConfigMap *configMapSource `yaml:"configMap,omitempty"`
}

type configMapSource struct {
	Name string `yaml:"name"`
}
