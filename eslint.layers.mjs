// Which folder may import which: the layers of docs/architecture.md, refused by lint instead of held by habit.
// Each folder gets one `@typescript-eslint/no-restricted-imports` entry holding all its patterns, because a later
// config entry for the same rule replaces an earlier one instead of adding to it. tests/layers.test.ts proves
// every pattern fires.

const RULE = "@typescript-eslint/no-restricted-imports";
const SOURCES = "**/*.{ts,tsx,mts,cts,js,mjs,jsx}";

// The engine's vocabulary: constants, types and pure describers (no store, no I/O) that the console may
// render with. Everything else in lib/runtime is the engine itself and reaches app/ and components/ only as types.
const RUNTIME_VOCABULARY = ["types", "state", "expiry", "permissions", "errors", "impact"].join("|");

const noAppOrComponents = {
  regex: "^(@/|(\\.\\./)+)(app|components)(/|$)",
  message: "lib/ never imports app/ or components/: move what both need into lib/ (docs/architecture.md#layers).",
};

const runtimeOnlyZodAndNode = {
  regex: "^(?!zod$|node:|\\./)",
  message:
    "lib/runtime imports only zod, node:* and its own files: pass what it needs in through the Store or a parameter (docs/architecture.md#layers).",
};

const storeStaysBelowTheDomain = {
  regex: "^(@/lib/|\\.\\./)(auth|inbox|queries|agents)(/|$)|^@/lib/auth$",
  message:
    "lib/store does not import auth, inbox, queries or agents: the engine or the command passes derived values in (docs/architecture.md#layers).",
};

const storeReadsNoAmbientWorkspace = {
  regex: "^(@/lib/|\\.\\./)(workspaces(/|$)|runtime/workspace$)",
  message:
    "lib/store looks up no ambient workspace (lib/workspaces, lib/runtime/workspace): the engine or the command passes the workspace in (docs/architecture.md#layers).",
};

const noDatabaseClient = {
  regex: "^((@/|(\\.\\./)+)lib/(db|store|generated)(/|$)|@prisma/client)",
  message: "The database is reached through lib/commands and lib/queries, not from here (docs/architecture.md#layers).",
};

const noEngine = {
  regex: `^(@/|(\\.\\./)+)lib/runtime(?!/(${RUNTIME_VOCABULARY})$)(/|$)`,
  message:
    "Only the engine's vocabulary (lib/runtime/{types,state,expiry,permissions,errors,impact}) may be imported for values here; the rest as `import type` (docs/architecture.md#layers).",
};

const appGetsNoDb = {
  regex: "^(@/|(\\.\\./)+)lib/db(\\.ts)?$",
  message:
    "app/ takes no client from lib/db (only its types): a route gets `db` from its wrapper (defineRoute, defineConsoleRoute), a page reads through lib/queries (docs/architecture.md#layers).",
};

// The domain's own folders, which app/ reaches through lib/commands (writes) and lib/queries (reads). Of these it
// imports only their vocabulary (the schemas, filters and constants a route or page parses and renders with), or types.
const appThroughCommandsAndQueries = {
  regex:
    "^(@/|(\\.\\./)+)lib/(agents|audit(?!/filter$)|backup|evals(?!/spec$)|inbox(?!/queue$)|notifications|retention|schedules|sdk|tools(?!/registered/schemas$))(/|$)",
  message:
    "app/ reaches the domain through lib/commands (writes) and lib/queries (reads); of the domain's folders only their vocabulary (lib/evals/spec, lib/inbox/queue, lib/audit/filter, lib/tools/registered/schemas) or types (docs/architecture.md#layers).",
};

const noComposition = {
  regex: "^(@/|(\\.\\./)+)lib/(runtime\\.server|tether)$",
  message:
    "Components do not start the runtime: a server component or route passes what they need (docs/architecture.md#layers).",
};

const restrict = (files, patterns, ignores = []) => ({ files, ignores, rules: { [RULE]: ["error", { patterns }] } });

export const layerRules = [
  restrict(
    [`lib/${SOURCES}`],
    [noAppOrComponents],
    [`lib/runtime/${SOURCES}`, `lib/store/${SOURCES}`, "lib/generated/**"],
  ),
  restrict([`lib/runtime/${SOURCES}`], [runtimeOnlyZodAndNode]),
  restrict([`lib/store/${SOURCES}`], [noAppOrComponents, storeStaysBelowTheDomain, storeReadsNoAmbientWorkspace]),
  restrict(
    [`components/${SOURCES}`],
    [{ ...noDatabaseClient, allowTypeImports: true }, { ...noEngine, allowTypeImports: true }, noComposition],
  ),
  // app/ holds no database client: a route's wrapper hands its handler `db`, a page reads through lib/queries.
  // Nor does it reach past lib/commands and lib/queries into the store, the generated client or the engine's internals.
  restrict(
    [`app/${SOURCES}`],
    [
      {
        regex: "^((@/|(\\.\\./)+)lib/(store|generated)(/|$)|@prisma/client)",
        message: "app/ reaches the database through lib/commands and lib/queries (docs/architecture.md#layers).",
      },
      { ...appGetsNoDb, allowTypeImports: true },
      { ...noEngine, allowTypeImports: true },
      { ...appThroughCommandsAndQueries, allowTypeImports: true },
    ],
  ),
];
