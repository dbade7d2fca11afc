import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "../lib/config";

// What can be checked here of the deployment files without Docker or a cluster (this machine has the
// docker client but no daemon): the compose file parsed and checked against the repository, the Dockerfile's
// commands and copies against what exists, and the Helm chart — rendered by a real helm when one is found
// (HELM_BIN, .cache/helm/helm from deploy/helm/fetch-helm.sh, or PATH), its values references checked always.

// js-yaml comes with eslint; no package is added for it.
const yaml = createRequire(import.meta.url)("js-yaml") as {
  load: (text: string) => unknown;
  loadAll: (text: string) => unknown[];
};
const root = path.resolve(__dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const CONFIG_VARIABLES = new Set(Object.keys(envSchema.shape));

/** The roles deploy/docker-entrypoint.sh knows (its case labels) and the command line each one runs. */
function entrypointRoles(): Map<string, string> {
  const roles = new Map<string, string>();
  const script = read("deploy/docker-entrypoint.sh");
  for (const match of script.matchAll(/^\s{2}([a-z]+)\)\n([\s\S]*?)\n\s*;;/gm)) {
    roles.set(match[1], /exec (.+)$/m.exec(match[2])?.[1] ?? "");
  }
  return roles;
}

type ComposeService = {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  restart?: string;
  stop_grace_period?: string;
  volumes?: string[];
};

describe("deploy/docker-entrypoint.sh", () => {
  it("has exactly the roles console, worker and migrate, each running what the repository runs", () => {
    const roles = entrypointRoles();
    expect([...roles.keys()].sort()).toEqual(["console", "migrate", "worker"]);
    expect(roles.get("console")).toBe('node "$app/console/server.js" "$@"');
    // The same files as `npm run worker` and `npm run db:deploy`.
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.worker).toBe("tsx scripts/worker.ts");
    expect(roles.get("worker")).toBe('node --import tsx scripts/worker.ts "$@"');
    expect(scripts["db:deploy"]).toBe("tsx scripts/setup.ts --no-seed");
    expect(roles.get("migrate")).toBe('node --import tsx scripts/setup.ts --no-seed "$@"');
    for (const file of ["scripts/worker.ts", "scripts/setup.ts"])
      expect(existsSync(path.join(root, file)), file).toBe(true);
    accessSync(path.join(root, "deploy/docker-entrypoint.sh"), constants.X_OK);
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const lines = dockerfile.split("\n").filter((line) => !line.startsWith("#"));

  it("copies only files that exist in the repository or that the build stage makes", () => {
    const buildOutputs = [".next/standalone", ".next/static", "node_modules"];
    const copies = lines.filter((line) => line.startsWith("COPY "));
    expect(copies.length).toBeGreaterThan(5);
    for (const line of copies) {
      const parts = line
        .replace(/^COPY\s+/, "")
        .split(/\s+/)
        .filter((p) => !p.startsWith("--chown"));
      const from = parts[0].startsWith("--from=") ? parts.shift()!.slice("--from=".length) : null;
      const sources = parts.slice(0, -1);
      for (const source of sources) {
        if (source === ".") continue;
        const relative = from ? source.replace(/^\/app\//, "") : source;
        if (from && buildOutputs.some((output) => relative === output)) continue;
        expect(existsSync(path.join(root, relative)), `${line}: ${relative}`).toBe(true);
      }
    }
    // The console's readiness reads prisma/<provider>/migrations from the standalone server's folder.
    expect(dockerfile).toContain("COPY --from=build /app/prisma ./console/prisma");
    expect(dockerfile).toContain("COPY --from=build /app/.next/standalone ./console");
  });

  it("builds with the repository's own commands and Next's standalone output", () => {
    expect(dockerfile).toMatch(/^RUN npm ci /m);
    expect(existsSync(path.join(root, "package-lock.json"))).toBe(true);
    expect(dockerfile).toMatch(/^RUN TETHER_STANDALONE_BUILD=1 npx next build$/m);
    expect(dockerfile).toMatch(/^RUN npm prune --omit=dev /m);
    expect(read("next.config.ts")).toMatch(/TETHER_STANDALONE_BUILD === "1" \? "standalone"/);
    // postinstall generates the Prisma clients from the files copied before npm ci.
    const pkg = JSON.parse(read("package.json")) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.scripts.postinstall).toBe("tsx scripts/generate.ts");
    expect(dockerfile).toContain("COPY scripts/generate.ts ./scripts/generate.ts");
    // What the worker and migrate roles run at run time is a production dependency (npm prune keeps it).
    for (const dependency of ["tsx", "prisma", "@prisma/client", "@prisma/adapter-pg", "pg", "dotenv"])
      expect(pkg.dependencies[dependency], dependency).toBeDefined();
  });

  it("runs as a non-root user, with the entrypoint's roles and a health check on the live endpoint", () => {
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf("FROM "));
    expect(runtimeStage).toMatch(/^USER node$/m);
    expect(runtimeStage).toContain('ENTRYPOINT ["/app/deploy/docker-entrypoint.sh"]');
    expect(runtimeStage).toContain("COPY deploy/docker-entrypoint.sh ./deploy/docker-entrypoint.sh");
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(runtimeStage)![1]) as string[];
    expect(entrypointRoles().has(cmd[0])).toBe(true);
    expect(runtimeStage).toMatch(/HEALTHCHECK [\s\S]*\/api\/health\/live/);
    expect(existsSync(path.join(root, "app/api/health/live/route.ts"))).toBe(true);
    // The ENV it sets are Tether's variables (or Node's, Next's and Prisma's own).
    const env = /^ENV ([\s\S]*?)\nWORKDIR/m.exec(runtimeStage)![1];
    const names = [...env.matchAll(/([A-Z_]+)=/g)].map((m) => m[1]);
    const notOurs = new Set([
      "NODE_ENV",
      "NEXT_TELEMETRY_DISABLED",
      "CHECKPOINT_DISABLE",
      "PRISMA_HIDE_UPDATE_MESSAGE",
    ]);
    for (const name of names) expect(notOurs.has(name) || CONFIG_VARIABLES.has(name), name).toBe(true);
    expect(names).toEqual(expect.arrayContaining(["HOSTNAME", "PORT", "TETHER_DATA_DIR"]));
  });
});

describe("deploy/compose.yaml", () => {
  const compose = yaml.load(read("deploy/compose.yaml")) as { services: Record<string, ComposeService> };
  const services = compose.services;
  const tether = ["migrate", "console", "worker"] as const;

  it("has Postgres, the migrate step, two consoles behind Caddy and two workers", () => {
    expect(Object.keys(services).sort()).toEqual(["console", "migrate", "postgres", "proxy", "worker"]);
    expect(services.postgres.image).toMatch(/^postgres:\d+$/);
    expect(services.proxy.image).toMatch(/^caddy:\d+$/);
    expect(services.proxy.volumes).toContain("./Caddyfile:/etc/caddy/Caddyfile:ro");
    expect(services.console.deploy?.replicas).toBe(2);
    expect(services.worker.deploy?.replicas).toBe(2);
    // Caddy finds every console replica by the service's name, on the console's port.
    const caddyfile = read("deploy/Caddyfile");
    expect(caddyfile).toMatch(/dynamic a \{\s*name console\s*port 3000/);
    expect(services.console.environment?.PORT ?? "3000").toBe("3000");
  });

  it("runs one image with the entrypoint's roles, built from the repository's Dockerfile", () => {
    const roles = entrypointRoles();
    for (const name of tether) {
      const service = services[name];
      expect(service.image).toBe(services.console.image);
      expect(service.build).toEqual({ context: "..", dockerfile: "Dockerfile" });
      expect(service.command).toEqual([name]);
      expect(roles.has(service.command![0])).toBe(true);
    }
    expect(
      existsSync(path.join(root, "deploy", services.console.build!.context, services.console.build!.dockerfile)),
    ).toBe(true);
  });

  it("starts migrate once after Postgres is healthy, and the consoles and workers only after it succeeded", () => {
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    expect(services.migrate.restart).toBe("no");
    expect(services.console.depends_on).toEqual({ migrate: { condition: "service_completed_successfully" } });
    expect(services.worker.depends_on).toEqual({ migrate: { condition: "service_completed_successfully" } });
    expect(services.proxy.depends_on).toEqual({ console: { condition: "service_healthy" } });
  });

  it("sets only variables lib/config.ts reads, with the workers outside the consoles", () => {
    for (const name of tether) {
      const env = services[name].environment ?? {};
      for (const variable of Object.keys(env))
        expect(CONFIG_VARIABLES.has(variable), `${name}: ${variable}`).toBe(true);
      expect(Object.keys(env)).toEqual(
        expect.arrayContaining(["DATABASE_URL", "AUTH_SECRET", "TETHER_SANDBOX_SECRET", "TETHER_SHUTDOWN_MS"]),
      );
      expect(env.DATABASE_URL).toMatch(/^postgresql:\/\/tether:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/tether$/);
      expect(env.TETHER_EMBEDDED_WORKER).toBe("0");
      // Docker's SIGKILL comes after the drain's budget.
      expect(Number(/^(\d+)s$/.exec(services[name].stop_grace_period ?? "")?.[1]) * 1000).toBeGreaterThan(
        Number(env.TETHER_SHUTDOWN_MS),
      );
    }
    expect(services.console.environment?.TETHER_TRUST_PROXY).toBe("1");
  });
});

// ---- the Helm chart

const chartDir = path.join(root, "deploy/helm/tether");

function findHelm(): string | null {
  const candidates = [process.env.HELM_BIN, path.join(root, ".cache/helm/helm"), "helm"].filter(
    (c): c is string => !!c,
  );
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ["version", "--short"], { stdio: "pipe" });
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

/** `.Values.a.b.c` paths a template uses (also through `$.root.Values` and `.root.Values`). */
function valuesReferences(template: string): string[] {
  return [...template.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => m[1].slice(1));
}

describe("deploy/helm/tether: static checks", () => {
  const values = yaml.load(readFileSync(path.join(chartDir, "values.yaml"), "utf8")) as Record<string, unknown>;
  const templates = readdirSync(path.join(chartDir, "templates"));

  it("every .Values reference in the templates names a key of values.yaml", () => {
    let references = 0;
    for (const file of templates) {
      for (const reference of valuesReferences(readFileSync(path.join(chartDir, "templates", file), "utf8"))) {
        references++;
        let node: unknown = values;
        for (const key of reference.split(".")) {
          expect(node !== null && typeof node === "object" && key in node, `${file}: .Values.${reference}`).toBe(true);
          node = (node as Record<string, unknown>)[key];
        }
      }
    }
    expect(references).toBeGreaterThan(20);
  });

  it("Chart.yaml and values.yaml parse; the settings are lib/config.ts variables; the secret holds the sensitive ones", () => {
    const chart = yaml.load(readFileSync(path.join(chartDir, "Chart.yaml"), "utf8")) as Record<string, string>;
    expect(chart).toMatchObject({ apiVersion: "v2", name: "tether", type: "application" });
    const v = values as {
      env: Record<string, string>;
      console: { env: Record<string, string> };
      worker: { env: Record<string, string> };
      secret: { keys: Record<string, string> };
    };
    for (const variable of [
      ...Object.keys(v.env),
      ...Object.keys(v.console.env),
      ...Object.keys(v.worker.env),
      ...Object.keys(v.secret.keys),
    ]) {
      expect(CONFIG_VARIABLES.has(variable), variable).toBe(true);
    }
    expect(Object.keys(v.secret.keys).sort()).toEqual(["AUTH_SECRET", "DATABASE_URL", "TETHER_SANDBOX_SECRET"]);
    expect(templates.sort()).toEqual([
      "_helpers.tpl",
      "console-deployment.yaml",
      "ingress.yaml",
      "migrate-job.yaml",
      "service.yaml",
      "worker-deployment.yaml",
      "worker-hpa.yaml",
    ]);
  });
});

const helm = findHelm();

describe.skipIf(!helm)("deploy/helm/tether: rendered by helm", () => {
  type Manifest = {
    kind: string;
    metadata: { name: string; annotations?: Record<string, string> };
    spec: Record<string, unknown>;
  };
  type Container = {
    args: string[];
    env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }>;
    livenessProbe?: { httpGet: { path: string; port: string } };
    readinessProbe?: { httpGet: { path: string; port: string } };
  };
  const render = (...set: string[]) =>
    (
      yaml.loadAll(
        execFileSync(helm!, ["template", "rel", chartDir, ...set.flatMap((s) => ["--set", s])], { encoding: "utf8" }),
      ) as Manifest[]
    ).filter(Boolean);
  const containerOf = (m: Manifest) => (m.spec.template as { spec: { containers: Container[] } }).spec.containers[0];

  it("lints clean", () => {
    expect(execFileSync(helm!, ["lint", chartDir], { encoding: "utf8" })).toContain("0 chart(s) failed");
  });

  it("renders the console, the workers with their autoscaler, the migration hook, the Service and the Ingress", () => {
    const manifests = render();
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      "Deployment/rel-tether-console",
      "Deployment/rel-tether-worker",
      "HorizontalPodAutoscaler/rel-tether-worker",
      "Ingress/rel-tether",
      "Job/rel-tether-migrate",
      "Service/rel-tether-console",
    ]);
    const byKind = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name)!;
    const roles = entrypointRoles();

    const console = containerOf(byKind("Deployment", "rel-tether-console"));
    expect(console.args).toEqual(["console"]);
    expect(console.livenessProbe?.httpGet).toEqual({ path: "/api/health/live", port: "http" });
    expect(console.readinessProbe?.httpGet).toEqual({ path: "/api/health/ready", port: "http" });
    expect(byKind("Deployment", "rel-tether-console").spec.replicas).toBe(2);

    const worker = containerOf(byKind("Deployment", "rel-tether-worker"));
    expect(worker.args).toEqual(["worker"]);
    // The autoscaler owns the workers' replica count.
    expect(byKind("Deployment", "rel-tether-worker").spec.replicas).toBeUndefined();
    expect(byKind("HorizontalPodAutoscaler", "rel-tether-worker").spec).toMatchObject({
      scaleTargetRef: { kind: "Deployment", name: "rel-tether-worker" },
      minReplicas: 2,
      maxReplicas: 8,
    });

    const job = byKind("Job", "rel-tether-migrate");
    expect(job.metadata.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect(containerOf(job).args).toEqual(["migrate"]);
    for (const container of [console, worker, containerOf(job)]) {
      expect(roles.has(container.args[0])).toBe(true);
      const secretRefs = container.env
        .filter((e) => e.valueFrom)
        .map((e) => [e.name, e.valueFrom!.secretKeyRef.name, e.valueFrom!.secretKeyRef.key]);
      expect(secretRefs).toEqual(
        expect.arrayContaining([
          ["DATABASE_URL", "tether", "database-url"],
          ["AUTH_SECRET", "tether", "auth-secret"],
          ["TETHER_SANDBOX_SECRET", "tether", "sandbox-secret"],
        ]),
      );
      for (const { name } of container.env) expect(CONFIG_VARIABLES.has(name), name).toBe(true);
      expect(container.env.find((e) => e.name === "TETHER_EMBEDDED_WORKER")?.value).toBe("0");
    }
    expect(byKind("Service", "rel-tether-console").spec).toMatchObject({ ports: [{ port: 80, targetPort: "http" }] });
    expect(byKind("Ingress", "rel-tether").spec).toMatchObject({
      rules: [
        {
          host: "tether.example.com",
          http: { paths: [{ backend: { service: { name: "rel-tether-console", port: { name: "http" } } } }] },
        },
      ],
    });
  });

  it("follows its values: no autoscaler gives the workers a replica count; no ingress, none rendered", () => {
    const manifests = render("worker.autoscaling.enabled=false", "worker.replicas=3", "ingress.enabled=false");
    expect(manifests.some((m) => m.kind === "HorizontalPodAutoscaler" || m.kind === "Ingress")).toBe(false);
    expect(manifests.find((m) => m.metadata.name === "rel-tether-worker")?.spec.replicas).toBe(3);
  });
});
