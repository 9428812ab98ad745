import { validationError, type Problem } from '../../errors/codes.js';

/**
 * Runs a write whose unique index decides races (a saved reply's shortcut, a product's retailer id): a duplicate
 * (SQLSTATE 23505) is the 400 naming `problem`'s field; any other failure goes on as it was.
 */
export async function refusingDuplicates<T>(write: () => Promise<T>, problem: Problem): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw validationError([problem]);
    throw err;
  }
}
