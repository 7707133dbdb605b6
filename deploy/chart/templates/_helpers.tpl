{{/* Name of a component's objects: <namePrefix>-<component> (fullnameOverride, when set, replaces namePrefix). */}}
{{- define "swh.name" -}}
{{- printf "%s-%s" (.root.Values.fullnameOverride | default .root.Values.namePrefix) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Value of app.kubernetes.io/name: the chart's name, or nameOverride. */}}
{{- define "swh.appName" -}}
{{- .Values.nameOverride | default .Chart.Name -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "swh.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "swh.appName" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: service-with-healthchecks
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of a component's objects (call with dict "root" $ "component" "controller"). */}}
{{- define "swh.componentLabels" -}}
{{ include "swh.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Selector labels of a component's pods: stable across upgrades. */}}
{{- define "swh.selectorLabels" -}}
app.kubernetes.io/name: {{ include "swh.appName" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Label whose value Prometheus uses as the job name (ServiceMonitor/PodMonitor jobLabel). */}}
{{- define "swh.jobLabelKey" -}}
service-with-healthchecks.network.deckhouse.io/metrics-job
{{- end -}}

{{/*
Image reference of an app (call with dict "root" $ "component" "controller"): [registry/]repository:tag[@digest].
One rule for every part (ADR 0041): global.imageRegistry, then the deprecated shared image.* keys of chart 0.1.0,
then <component>.image. So the registry is global.imageRegistry, else image.repositoryPrefix, else
<component>.image.registry; the tag is image.tag, else <component>.image.tag, else the chart's appVersion.
*/}}
{{- define "swh.image" -}}
{{- $values := .root.Values -}}
{{- $image := index $values .component "image" -}}
{{- $legacy := $values.image | default dict -}}
{{- $registry := $values.global.imageRegistry | default $legacy.repositoryPrefix | default $image.registry | trimSuffix "/" -}}
{{- $tag := $legacy.tag | default $image.tag | default .root.Chart.AppVersion -}}
{{- $reference := printf "%s:%s" $image.repository $tag -}}
{{- if $registry }}{{ $reference = printf "%s/%s" $registry $reference }}{{ end -}}
{{- with $image.digest }}{{ $reference = printf "%s@%s" $reference . }}{{ end -}}
{{- $reference -}}
{{- end -}}

{{/* Pull policy of an app's image: the deprecated image.pullPolicy, else <component>.image.pullPolicy. */}}
{{- define "swh.imagePullPolicy" -}}
{{- (.root.Values.image | default dict).pullPolicy | default (index .root.Values .component "image").pullPolicy -}}
{{- end -}}

{{/* imagePullSecrets entries of a pod: global.imagePullSecrets, then imagePullSecrets; each a name or {name}, once. */}}
{{- define "swh.imagePullSecrets" -}}
{{- $names := list -}}
{{- range concat (.Values.global.imagePullSecrets | default list) (.Values.imagePullSecrets | default list) -}}
{{- if kindIs "string" . }}{{ $names = append $names . }}{{ else }}{{ $names = append $names .name }}{{ end -}}
{{- end -}}
{{- range uniq $names }}
- name: {{ . }}
{{- end -}}
{{- end -}}

{{/*
Metadata of an app's pod template from <component>'s values (call with dict "root" $ "component" "agent"): the
component's labels plus podLabels, which may not set a selector label (that would detach the pods from their
Deployment or DaemonSet) nor the monitors' job label, and podAnnotations.
*/}}
{{- define "swh.podMetadata" -}}
{{- $values := index .root.Values .component -}}
{{- $reserved := include "swh.selectorLabels" . | fromYaml -}}
{{- $_ := set $reserved (include "swh.jobLabelKey" .) "" -}}
{{- range $key, $_ := $values.podLabels }}
{{- if hasKey $reserved $key }}
{{- fail (printf "%s.podLabels: %s is a label the chart sets on its pods (selector or metrics job) and cannot be set" $.component $key) }}
{{- end }}
{{- end -}}
labels:
  {{- include "swh.componentLabels" . | nindent 2 }}
  {{ include "swh.jobLabelKey" . }}: {{ include "swh.name" . }}
  {{- with $values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
annotations:
  kubectl.kubernetes.io/default-container: {{ .component }}
  {{- with $values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}

{{/*
Pod spec fields both apps take the same way from <component>'s values (call with dict "root" $ "component" "agent"):
ServiceAccount, pod security context, pull Secrets and scheduling except affinity (the controller has a default).
*/}}
{{- define "swh.podSpec" -}}
{{- $values := index .root.Values .component -}}
serviceAccountName: {{ include "swh.name" . }}
automountServiceAccountToken: true
enableServiceLinks: false
terminationGracePeriodSeconds: 30
securityContext:
  {{- toYaml $values.podSecurityContext | nindent 2 }}
{{- with include "swh.imagePullSecrets" .root | trim }}
imagePullSecrets:
  {{- . | nindent 2 }}
{{- end }}
{{- with $values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
Container fields both apps take the same way (call with dict "root" $ "component" "agent"): image, pull policy,
security context and volume mounts (the metrics certificate, then extraVolumeMounts).
*/}}
{{- define "swh.containerCommon" -}}
{{- $values := index .root.Values .component -}}
image: {{ include "swh.image" . }}
imagePullPolicy: {{ include "swh.imagePullPolicy" . }}
securityContext:
  {{- toYaml $values.securityContext | nindent 2 }}
{{- if or .root.Values.metrics.tls.secretName $values.extraVolumeMounts }}
volumeMounts:
  {{- if .root.Values.metrics.tls.secretName }}
  - name: metrics-tls
    mountPath: {{ include "swh.metricsTlsDir" .root }}
    readOnly: true
  {{- end }}
  {{- with $values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* The pod's volumes (call with dict "root" $ "component" "agent"): the metrics certificate, then extraVolumes. */}}
{{- define "swh.podVolumes" -}}
{{- $values := index .root.Values .component -}}
{{- if or .root.Values.metrics.tls.secretName $values.extraVolumes }}
volumes:
  {{- with .root.Values.metrics.tls.secretName }}
  # Rotated in place by the kubelet; the app reloads it (--metrics-tls-*).
  - name: metrics-tls
    secret:
      secretName: {{ . }}
  {{- end }}
  {{- with $values.extraVolumes }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* Where the apps mount the metrics serving certificate Secret (metrics.tls.secretName). */}}
{{- define "swh.metricsTlsDir" -}}
/etc/swh/metrics-tls
{{- end -}}

{{/* The apps' metrics flags: HTTPS on every interface, the mounted certificate when one is configured. */}}
{{- define "swh.metricsArgs" -}}
- --metrics-bind-address=:{{ .Values.ports.metrics }}
{{- if .Values.metrics.tls.secretName }}
- --metrics-tls-cert-file={{ include "swh.metricsTlsDir" . }}/tls.crt
- --metrics-tls-private-key-file={{ include "swh.metricsTlsDir" . }}/tls.key
{{- end }}
{{- end -}}

{{/* The apps' container ports: probes on health, authorised HTTPS metrics on https-metrics. */}}
{{- define "swh.appPorts" -}}
- name: health
  containerPort: {{ .Values.ports.health }}
  protocol: TCP
- name: https-metrics
  containerPort: {{ .Values.ports.metrics }}
  protocol: TCP
{{- end -}}

{{/*
The scrape endpoint of a ServiceMonitor or PodMonitor (call with dict "root" $ "component" "agent" "kind"
"serviceMonitor" or "podMonitor"): path, timing, relabelings, credentials and TLS. Refuses to render a monitor
that could not authenticate or would not verify the certificate without being told to (ADR 0041).
*/}}
{{- define "swh.scrapeEndpoint" -}}
{{- $metrics := .root.Values.metrics -}}
{{- $monitor := index $metrics .kind -}}
path: /metrics
interval: {{ $monitor.interval }}
{{- with $monitor.scrapeTimeout }}
scrapeTimeout: {{ . }}
{{- end }}
# The apps label their series with the ServiceWithHealthchecks' namespace.
honorLabels: true
{{- with $monitor.relabelings }}
relabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $monitor.metricRelabelings }}
metricRelabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- include "swh.scrapeAuthorization" . }}
{{- include "swh.scrapeTls" . }}
{{- end -}}

{{/* Credentials of a monitor's endpoint: exactly one of scrapeClass, authorization.secretName, bearerTokenFile. */}}
{{- define "swh.scrapeAuthorization" -}}
{{- $metrics := .root.Values.metrics -}}
{{- $tokenFile := .kind | eq "serviceMonitor" | ternary $metrics.serviceMonitor.bearerTokenFile "" -}}
{{- $chosen := compact (list $metrics.scrapeClass $metrics.authorization.secretName $tokenFile) -}}
{{- $options := .kind | eq "serviceMonitor" | ternary "metrics.scrapeClass, metrics.authorization.secretName or metrics.serviceMonitor.bearerTokenFile" "metrics.scrapeClass or metrics.authorization.secretName (a PodMonitor cannot read a token file)" -}}
{{- if ne (len $chosen) 1 }}
{{- fail (printf "metrics.%s needs exactly one way to authenticate to /metrics, got %d: set %s" .kind (len $chosen) $options) }}
{{- end }}
{{- if $metrics.authorization.secretName }}
# The bearer token in a Secret of the monitor's namespace; its user must be allowed get on /metrics.
authorization:
  type: Bearer
  credentials:
    name: {{ $metrics.authorization.secretName }}
    key: {{ $metrics.authorization.secretKey }}
{{- else if $tokenFile }}
# A token file in the Prometheus pod (opt-in; deprecated by prometheus-operator).
bearerTokenFile: {{ $tokenFile }}
{{- end }}
{{- end -}}

{{/* TLS of a monitor's endpoint: verified with the serving Secret's CA, or skipped only when asked to. */}}
{{- define "swh.scrapeTls" -}}
{{- $tls := .root.Values.metrics.tls -}}
{{- if and $tls.secretName $tls.insecureSkipVerify }}
{{- fail "metrics.tls.insecureSkipVerify cannot be set with metrics.tls.secretName: the monitors verify that certificate" }}
{{- end }}
{{- if and $tls.monitorCa (not $tls.secretName) }}
{{- fail "metrics.tls.monitorCa needs metrics.tls.secretName: without it each pod serves a self-signed certificate no CA signed" }}
{{- end }}
scheme: https
tlsConfig:
{{- if $tls.secretName }}
  ca:
    {{- if $tls.monitorCa }}
    {{- toYaml $tls.monitorCa | nindent 4 }}
    {{- else }}
    secret:
      name: {{ $tls.secretName }}
      key: {{ $tls.caKey }}
    {{- end }}
  serverName: {{ printf "%s-metrics.%s.svc" (include "swh.name" .) .root.Release.Namespace }}
{{- else if $tls.insecureSkipVerify }}
  # metrics.tls.insecureSkipVerify: each pod serves a self-signed certificate no CA vouches for.
  insecureSkipVerify: true
{{- else }}
{{- fail (printf "metrics.%s verifies the metrics certificate, and the pods' self-signed ones have no CA: set metrics.tls.secretName (a kubernetes.io/tls Secret with the CA under metrics.tls.caKey, e.g. from cert-manager), or opt out with metrics.tls.insecureSkipVerify=true" .kind) }}
{{- end }}
{{- end -}}
