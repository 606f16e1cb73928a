// The package ships no types. It parses Prometheus' text exposition format into metric families.
declare module "parse-prometheus-text-format" {
  type Sample = { value: string; labels?: Record<string, string> };
  type HistogramSample = { buckets: Record<string, string>; count: string; sum: string; labels?: Record<string, string> };
  export type MetricFamily = {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: (Sample | HistogramSample)[];
  };
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
