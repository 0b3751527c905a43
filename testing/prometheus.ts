/**
 * Reading GET /metrics the way Prometheus would: parsed by npm:parse-prometheus-text-format,
 * which throws on any line that is not valid text exposition. Its output keeps the labels of
 * counters and gauges but folds a histogram's label sets together, so a histogram is read one
 * label set at a time (its "+Inf" bucket is the number of observations).
 */
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export interface Family {
  name: string;
  type: string;
  help: string;
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
}

/** Every metric family of an exposition; throws when the text is not valid exposition. */
export function parseExposition(text: string): Family[] {
  return parsePrometheusTextFormat(text) as Family[];
}

const matches = (labels: Record<string, string> = {}, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([key, value]) => labels[key] === value);

/** Sum of a counter or gauge over the series carrying all of `labels` (0 when none). */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}) {
  const family = parseExposition(text).find((f) => f.name === name);
  return (family?.metrics ?? [])
    .filter((m) => matches(m.labels, labels))
    .reduce((sum, m) => sum + Number(m.value), 0);
}

/** Observations of a histogram series with exactly `labels` (0 when it does not exist yet). */
export function histogramCount(text: string, name: string, labels: Record<string, string>) {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const own = text.split("\n").filter((line) =>
    line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `) ||
    (line.startsWith(`${name}_bucket{`) && pairs.every((pair) => line.includes(pair)))
  );
  const family = parseExposition(own.join("\n") + "\n").find((f) => f.name === name);
  return Number(family?.metrics[0]?.buckets?.["+Inf"] ?? 0);
}
