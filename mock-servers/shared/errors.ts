/** A refusal the caller can act on: unknown id, rule violated, nothing to change. Its message is the MCP error text. */
export class ToolError extends Error {}
