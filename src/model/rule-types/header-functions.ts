// Limits of Requestly's functions in header values, apart from the Headers schema: the engine reads
// them too, and it must not load the schema library (it runs in a browser service worker, where
// compiling schemas into functions is forbidden).

/** The most digits Requestly's `rq_rand(N)` gives in a header value. */
export const MAX_RANDOM_DIGITS = 8;
