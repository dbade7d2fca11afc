{{- define "tether.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tether.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "tether.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "tether.image" -}}
{{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}
{{- end -}}

{{/* The environment of every role: the Secret's keys, the shared settings, then the role's own. */}}
{{- define "tether.env" -}}
{{- range $name, $key := .root.Values.secret.keys }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $.root.Values.secret.name }}
      key: {{ $key }}
{{- end }}
{{- range $name, $value := .root.Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- range $name, $value := .extra }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}
