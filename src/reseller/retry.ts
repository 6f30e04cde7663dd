/** Timing of the reseller client's retries; shared with the other API clients in src/http-client. */
export { backoffDelay, parseRetryAfter, sleep } from "../http-client/index.js";
