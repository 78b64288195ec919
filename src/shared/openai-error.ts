// The OpenAI error envelope, used by everything tokenmeter answers itself (gateway, simulator), so that every
// OpenAI-compatible client shows the message instead of failing to parse the body.

export interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

export function openAIError(message: string, type: string, code: string | null, param: string | null = null) {
  const body: OpenAIErrorBody = { error: { message, type, param, code } };
  return body;
}
