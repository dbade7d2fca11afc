// One system's measurement, in a process of its own (run.ts spawns it): no pool, timer or poller a
// system leaves behind can slow the next one down, or die noisily when its database is dropped.
//   node --import tsx bench/peers/system.ts <tether|tether-each-step|dbos|langgraph-sync|langgraph-async> <database url>
// The figures go to stdout as one line: PEER_RESULT {json}.
import { benchDbos } from "./dbos";
import { benchLangGraph } from "./langgraph";
import { benchTether } from "./tether";
import { countBackendsOf, PLAN, type PeerFigures } from "./workload";

const SYSTEMS: Record<string, (url: string) => Promise<PeerFigures>> = {
  tether: (url) => benchTether(url, PLAN),
  "tether-each-step": (url) => benchTether(url, PLAN, true),
  dbos: (url) => benchDbos(url, PLAN),
  "langgraph-sync": (url) => benchLangGraph(url, PLAN, "sync", true),
  "langgraph-async": (url) => benchLangGraph(url, PLAN, "async", false),
};

async function main(system: string, url: string) {
  const bench = SYSTEMS[system];
  if (!bench) throw new Error(`unknown system ${system}; one of ${Object.keys(SYSTEMS).join(", ")}`);
  countBackendsOf(url);
  process.stdout.write(`\nPEER_RESULT ${JSON.stringify(await bench(url))}\n`);
}

main(process.argv[2], process.argv[3]).then(
  () => process.exit(0), // a peer may leave timers or pools behind after its shutdown
  (error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
