import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { type Config, ConfigError, createConfig, ENV_VARIABLES, PRODUCT_KINDS } from "../../src/config.js";

const root = new URL("../../", import.meta.url);
const readme = readFileSync(new URL("README.md", root), "utf8");
const envExample = readFileSync(new URL(".env.example", root), "utf8");

/** Rows of the README's configuration table: name → default column (backticks removed). */
function readmeVariables(): Map<string, string> {
  const lines = readme.split("\n");
  const start = lines.findIndex((l) => /^\| variable \| default \| meaning \|$/.test(l));
  expect(start, "README has a '| variable | default | meaning |' table").toBeGreaterThanOrEqual(0);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [, name, def] = line.split("|").map((c) => c.trim());
    const variable = /^`([A-Z0-9_]+)`$/.exec(name ?? "")?.[1];
    expect(variable, `README row "${line}" names one variable`).toBeDefined();
    expect(rows.has(variable!), `${variable} appears once in the README table`).toBe(false);
    rows.set(variable!, (def ?? "").replace(/`/g, ""));
  }
  return rows;
}

/** Assignments in .env.example: name → { value, commented }. */
function exampleVariables(): Map<string, { value: string; commented: boolean }> {
  const vars = new Map<string, { value: string; commented: boolean }>();
  for (const line of envExample.split("\n")) {
    const m = /^(# ?)?([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line);
    if (!m) continue;
    const name = m[2]!;
    expect(vars.has(name), `${name} is assigned once in .env.example`).toBe(false);
    vars.set(name, { value: m[3]!, commented: m[1] !== undefined });
  }
  return vars;
}

/** BOT_TOKEN → botToken */
const configKey = (name: string) =>
  name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof Config;

function problemsOf(env: Record<string, string>): Map<string, string> {
  try {
    createConfig(env);
    return new Map();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return new Map(err.problems.map((p) => [p.variable, p.message]));
  }
}

const REQUIRED = [...problemsOf({}).entries()].filter(([, m]) => m.startsWith("is required")).map(([v]) => v);
const minimalEnv: Record<string, string> = {
  BOT_TOKEN: "123:abc",
  RESELLER_API_URL: "https://reseller.example.com",
  RESELLER_API_KEY: "key",
  OPERATOR_IDS: "1",
};

describe("README, .env.example and src/config.ts agree", () => {
  it("the required variables are the four the docs call required", () => {
    expect(REQUIRED.sort()).toEqual(Object.keys(minimalEnv).sort());
    expect(() => createConfig(minimalEnv)).not.toThrow();
  });

  it("the README's table lists exactly the variables the config reads", () => {
    expect([...readmeVariables().keys()].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it(".env.example assigns exactly the variables the config reads", () => {
    expect([...exampleVariables().keys()].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it("README defaults are what createConfig gives when only the required variables are set", () => {
    const config = createConfig(minimalEnv);
    for (const [name, def] of readmeVariables()) {
      const value = config[configKey(name)];
      if (def === "required") {
        expect(REQUIRED, `${name} is documented as required`).toContain(name);
      } else if (def === "—") {
        expect([undefined, []], `${name} has no default`).toContainEqual(value);
      } else if (def === "all") {
        expect(value, name).toEqual([...PRODUCT_KINDS]);
      } else {
        expect(String(value), `${name} default`).toBe(def);
      }
    }
  });

  it(".env.example fills the required variables and leaves every optional one unset or at its default", () => {
    const vars = exampleVariables();
    const defaults = createConfig(minimalEnv);
    for (const [name, { value, commented }] of vars) {
      if (REQUIRED.includes(name)) {
        expect(commented, `${name} is required, so it is not commented out`).toBe(false);
        expect(value, `${name} has a placeholder`).not.toBe("");
        continue;
      }
      expect(commented || value === "", `${name} is optional: commented out or empty`).toBe(true);
      // A value shown for an optional variable with a default is that default.
      const readmeDefault = readmeVariables().get(name);
      if (value !== "" && readmeDefault !== "—") {
        expect(createConfig({ ...minimalEnv, [name]: value })[configKey(name)], name).toEqual(
          defaults[configKey(name)],
        );
      }
    }
  });

  it("a copy of .env.example is a configuration the bot accepts, with every default in place", () => {
    const parsed = parseEnv(envExample) as Record<string, string>;
    expect(Object.keys(parsed).sort()).toEqual([...REQUIRED].sort());
    const config = createConfig(parsed);
    const defaults = createConfig(minimalEnv);
    for (const name of ENV_VARIABLES) {
      if (REQUIRED.includes(name)) continue;
      expect(config[configKey(name)], name).toEqual(defaults[configKey(name)]);
    }
  });
});
