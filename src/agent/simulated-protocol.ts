import type { ToolSpec } from './agent-tools.js';

/**
 * The text protocol for models without native tool calling (simulated function calls): the system prompt lists the
 * tools, and the model answers each turn with one JSON object, either `{"tool": "...", "arguments": {...}}` or the
 * final answer. Reasoning models wrap their thoughts in `<think>…</think>` or add prose and code fences around the
 * object; all of that is tolerated here.
 */

/** The tool list as the simulated-mode prompt shows it: name, purpose, and the JSON schema of the arguments. */
export function describeTools(tools: readonly ToolSpec[]): string {
  return tools.map((t) => `- ${t.name}: ${t.description}\n  arguments (JSON schema): ${JSON.stringify(t.parameters)}`).join('\n');
}

/** Removes `<think>…</think>` blocks (and an unterminated one at the start), which hold reasoning, not the reply. */
export function stripThinking(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const open = out.search(/<think>/i);
  if (open >= 0) out = out.slice(0, open);
  return out.trim();
}

/** Every balanced `{…}` substring that parses as a JSON object, in order (strings and escapes respected). */
function jsonObjects(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) {
        try {
          const value: unknown = JSON.parse(text.slice(start, i + 1));
          if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
            found.push(value as Record<string, unknown>);
            start = i;
          }
        } catch {
          // not JSON: try the next opening brace
        }
        break;
      }
    }
  }
  return found;
}

/** What one reply of the model asks for. */
export type SimulatedReply =
  | { kind: 'call'; name: string; arguments: unknown }
  | { kind: 'final'; value: Record<string, unknown> }
  | { kind: 'invalid'; problem: string };

/**
 * Reads one reply: the first JSON object with a `tool` field is a call; otherwise the first object with an
 * `answer` (or `status`) field is the final answer. Fenced blocks, prose and thinking are skipped.
 */
export function readReply(content: string): SimulatedReply {
  const text = stripThinking(content);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const objects = [...(fenced ? jsonObjects(fenced) : []), ...jsonObjects(text)];
  const call = objects.find((o) => typeof o.tool === 'string');
  if (call) return { kind: 'call', name: String(call.tool), arguments: call.arguments ?? call.args ?? {} };
  const final = objects.find((o) => 'answer' in o || 'status' in o);
  if (final) return { kind: 'final', value: final };
  return {
    kind: 'invalid',
    problem: objects.length === 0 ? 'no JSON object found in the reply' : 'the JSON object has neither "tool" nor "answer"',
  };
}
