// The tools a turn may use, as every provider sees them: the definitions shown to the model and one way to call
// them. It lives beside the tools (not the providers) so that providers depend on tools and never the other way.

export interface ToolDefinition {
  name: string; // e.g. platform-get-portfolio
  description: string;
  /** JSON Schema (draft 2020-12) of the tool's arguments object */
  parameters: Record<string, unknown>;
}

export interface ToolCallRecord {
  name: string;
  arguments: unknown;
  ok: boolean;
  /** what the tool returned (JSON text) or the error message */
  result: string;
}

/** The tools a turn may use. Calls never throw: a failure comes back as `ok: false` with a message. */
export interface Toolbox {
  definitions: ToolDefinition[];
  call(name: string, args: unknown, signal: AbortSignal): Promise<ToolCallRecord>;
}

/** A turn without tools (an unbound worker): every call fails in words. */
export const EMPTY_TOOLBOX: Toolbox = {
  definitions: [],
  call: async (name) => ({ name, arguments: null, ok: false, result: `No tool named ${name}.` }),
};
