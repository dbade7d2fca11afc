// Types of scaffold.mjs (plain JavaScript, run by the CLI without a TypeScript loader).
export declare class ScaffoldError extends Error {}
export declare function identifierFor(name: string): string;
export declare function scaffoldAgent(name: string, agentsDir: string): { files: string[]; listed: boolean };
