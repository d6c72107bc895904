// PKTesting: filled in by the testing work.
@_exported import PKCore
