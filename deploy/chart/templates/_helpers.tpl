{{/* Name of a component's objects: <namePrefix>-<component>. */}}
{{- define "swh.name" -}}
{{- printf "%s-%s" .root.Values.namePrefix .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "swh.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
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
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Label whose value Prometheus uses as the job name (ServiceMonitor/PodMonitor jobLabel). */}}
{{- define "swh.jobLabelKey" -}}
service-with-healthchecks.network.deckhouse.io/metrics-job
{{- end -}}

{{/* Image of an app (call with dict "root" $ "component" "controller"). */}}
{{- define "swh.image" -}}
{{- printf "%s/swh-%s:%s" .root.Values.image.repositoryPrefix .component (.root.Values.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}

{{/* Restricted container security context (Pod Security Standard "restricted"). */}}
{{- define "swh.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: 65534
runAsGroup: 65534
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Restricted pod security context. */}}
{{- define "swh.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65534
runAsGroup: 65534
seccompProfile:
  type: RuntimeDefault
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

{{/* Scrape settings of ServiceMonitor/PodMonitor endpoints (call with dict "root" $ "component" "agent"). */}}
{{- define "swh.scrapeTls" -}}
{{- $tls := .root.Values.metrics.tls -}}
scheme: https
tlsConfig:
{{- if $tls.secretName }}
  ca:
    secret:
      name: {{ $tls.secretName }}
      key: {{ $tls.caKey }}
  serverName: {{ printf "%s-metrics.%s.svc" (include "swh.name" .) .root.Release.Namespace }}
{{- else }}
  # Each pod serves a self-signed certificate made at start-up: there is no CA to verify it with.
  insecureSkipVerify: true
{{- end }}
{{- end -}}
