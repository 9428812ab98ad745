import type { Project } from '../entities/project.js';

/**
 * Project usage limits (CONTRACT §7), the pipeline step between project and authentication.
 * Issue 6 implements counting; until then no project limit is enforced.
 */
export class LimitsService {
  async enforce(_input: { project: Project; ip: string; userId?: number }): Promise<void> {
    return undefined;
  }
}
