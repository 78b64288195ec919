// Bounds what one bad upstream can put into a record or a log line: long enough for any real provider message.
export const MAX_ERROR_MESSAGE_CHARS = 2000;

export function capErrorMessage(message: string): string {
  return message.length > MAX_ERROR_MESSAGE_CHARS ? message.slice(0, MAX_ERROR_MESSAGE_CHARS) : message;
}
