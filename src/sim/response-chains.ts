// Responses' `previous_response_id`: the simulator stores no responses, so a request that continues one is
// answered from the input it carries, counted alone. What it keeps is each response's count of tool-calling turns
// in its chain (bounded: the oldest are forgotten first), so --max-tool-turns ends a loop that sends only the new
// function_call_output items with previous_response_id. An unknown or forgotten id counts no earlier turns.
export class ResponseChains {
  private readonly toolTurnsById = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  /** Tool-calling turns in the chain that ends with response `id` (that response's own call included). */
  toolTurns(id: string | undefined): number {
    return id === undefined ? 0 : (this.toolTurnsById.get(id) ?? 0);
  }

  add(id: string, toolTurns: number): void {
    this.toolTurnsById.set(id, toolTurns);
    if (this.toolTurnsById.size > this.capacity) {
      const oldest = this.toolTurnsById.keys().next().value;
      if (oldest !== undefined) this.toolTurnsById.delete(oldest);
    }
  }
}
