import { validationError } from './codes.js';

/** Deeper JSON bodies are refused before validation: no body of the API needs more, and recursion over them would overflow. */
export const MAX_BODY_DEPTH = 64;

/** Whether `value` nests objects and arrays deeper than `max` (the outermost counting 1), checked without recursion. */
export function depthExceeds(value: object, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Object.values(v as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** 400 ERROR_VALIDATION naming `body` when `value` is nested deeper than MAX_BODY_DEPTH (REST's JSON bodies, Meta's notifications). */
export function assertBodyDepth(value: unknown): void {
  if (value !== null && typeof value === 'object' && depthExceeds(value, MAX_BODY_DEPTH)) {
    throw validationError([{ field: 'body', rule: 'max_depth', params: { max: MAX_BODY_DEPTH } }]);
  }
}
