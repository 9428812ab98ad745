/** The part of autocannon 9's programmatic API the benchmark runner uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
    /**
     * Requests each connection sends in turn; setupRequest may rewrite each one before it is sent, and onResponse
     * reads its answer; `context` is the connection's own object, kept across its requests.
     */
    requests?: {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (req: any, context: any) => any;
      onResponse?: (status: number, body: string, context: any) => void;
    }[];
  }
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    duration: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export = autocannon;
}
