/**
 * Why a call failed. `response_format` means the endpoint rejected the structured-output request;
 * `circuit_open` means the call was not made because the endpoint kept failing earlier in the run.
 */
export type LlmFailureKind =
  'timeout' | 'rate_limited' | 'server_error' | 'connection' | 'bad_request' | 'auth' | 'response_format' | 'malformed' | 'circuit_open';

/** A failed LLM call. The message never contains the API key or URL credentials. */
export class LlmError extends Error {
  readonly kind: LlmFailureKind;
  readonly status: number | undefined;
  constructor(kind: LlmFailureKind, message: string, status?: number) {
    super(message);
    this.name = 'LlmError';
    this.kind = kind;
    this.status = status;
  }
}
