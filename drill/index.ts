/**
 * `npm run drill`: the fault drills, run against the project's own emulators and a private
 * Redis, all on 127.0.0.1. Prints one row per check (PASS/FAIL with the figure behind it) and
 * exits non-zero when any check failed. `--short` is the CI form (small sizes, about 4 minutes);
 * `--only 1,4` runs some of the drills (numbers as in the table).
 */
import { cpus, totalmem } from "node:os";
import { mb, printTable } from "../bench/lib.js";
import { drillNotes, runDrills } from "./run.js";

const short = process.argv.includes("--short");
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? "").split(",").filter(Boolean) : undefined;
process.stdout.write(
  `Fault drills on ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${mb(totalmem())} RAM, Node ${process.version}${short ? " (short)" : ""}\n`,
);
const started = Date.now();
const rows = await runDrills({ short, ...(only ? { only } : {}) });
printTable(
  `Fault drills${short ? " (short)" : ""}: ${rows.filter((r) => r.pass).length}/${rows.length} checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  rows.map((r) => [`${r.pass ? "PASS" : "FAIL"}  ${r.id.padEnd(3)} ${r.check}`, r.figure]),
);
process.stdout.write(
  `\nNotes:\n${drillNotes(short, only)
    .map((n) => `- ${n}`)
    .join("\n")}\n`,
);
process.exit(rows.every((r) => r.pass) ? 0 : 1);
