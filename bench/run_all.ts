/**
 * `deno task bench`: runs every benchmark one after another (never in parallel: the machine has
 * two cores and each bench compares two things side by side in one run).
 *
 *   deno task bench [name ...]     e.g. `deno task bench export proxy`
 */
const ALL = [
  "capture",
  "capture_options",
  "capture_format",
  "export",
  "proxy",
  "store",
  "boundary_probe",
  "fleet",
  "jobs",
];
const chosen = Deno.args.length ? Deno.args : ALL;

let failed = 0;
for (const name of chosen) {
  if (!ALL.includes(name)) {
    console.error(`unknown bench "${name}"; choose from ${ALL.join(", ")}`);
    Deno.exit(2);
  }
  console.log(`\n## bench/${name}.ts\n`);
  const script = new URL(`./${name}.ts`, import.meta.url).pathname;
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    console.error(`bench/${name}.ts exited with ${code}`);
    failed++;
  }
}
Deno.exit(failed ? 1 : 0);
