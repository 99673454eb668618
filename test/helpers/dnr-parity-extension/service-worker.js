// Nothing runs here by itself: the parity test evaluates its calls to chrome.declarativeNetRequest
// inside this worker (testMatchOutcome needs an unpacked extension with the feedback permission).
self.ready = true;
