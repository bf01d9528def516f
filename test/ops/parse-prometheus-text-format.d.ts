declare module "parse-prometheus-text-format" {
  /** One sample: a value (counters, gauges) or buckets, count and sum (histograms). */
  export interface ParsedSample {
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  /** One metric family of the exposition. */
  export interface ParsedFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: ParsedSample[];
  }
  /** Parses Prometheus text exposition into metric families. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
