// GET /info: what the Agent Inbox reads to check a deployment URL. Nothing in it is secret (no version, no host).
export function deploymentInfo() {
  return {
    flags: { assistants: false, crons: false, langsmith: false },
    host: { kind: "tether", project_id: null, revision_id: "tether", tenant_id: null },
  };
}
