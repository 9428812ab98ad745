import { GraphQLError } from 'graphql';

/** A message to translate: a catalogue key and its parameters (i18n/messages.ts). */
export interface Message {
  key: string;
  /** Lists (the allowed values of an enum) are joined in the message's language. */
  params?: Record<string, string | number | readonly (string | number)[]>;
}

export interface AppErrorExtensions {
  code: string;
  status: number;
  messages: Message[];
  /** A structured result instead of messages (the 409 of the current conversation). */
  result?: Record<string, unknown>;
  /** Extra response headers (rate limiting). */
  headers?: Record<string, string>;
}

/**
 * Every expected failure of the service: a stable code and its HTTP status (errors/codes.ts).
 * It is a GraphQLError so both engines carry the extensions through unchanged, to `/graphql`
 * callers and to the REST gateway, which turns them into the envelope.
 */
export class AppError extends GraphQLError {
  declare readonly extensions: AppErrorExtensions & Record<string, unknown>;

  constructor(code: string, status: number, messages: Message[], extra: Partial<AppErrorExtensions> = {}) {
    super(messages[0]?.key ?? code, { extensions: { code, status, messages, ...extra } });
  }

  get code(): string {
    return this.extensions.code;
  }

  get status(): number {
    return this.extensions.status;
  }
}
