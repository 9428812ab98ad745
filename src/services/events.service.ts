/**
 * Events of CONTRACT §9.4 seen from a process. `committed` is called after a transaction that
 * appended events has committed (services/event-log.ts); the PostgreSQL NOTIFY sent inside that
 * transaction already tells every listening process.
 */
export class EventsService {
  committed(_projectId: number, _lastId: number): void {}
}
