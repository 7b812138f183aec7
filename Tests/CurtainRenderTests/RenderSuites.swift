import Testing

/// The renderer's suites, run one test at a time. Their tests are synchronous and CPU-bound
/// (a frame takes up to seconds in a debug build): run side by side they could hold both
/// threads of Swift's cooperative pool (one per core on the 2-core CI machine), starving the
/// socket tests of the same test process and their 10 s timeouts. `.serialized` on this parent
/// applies to every suite nested in it (RenderTests, SeedRenderTests, IncrementalTests).
@Suite(.serialized) enum RenderSuites {}
