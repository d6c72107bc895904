// PKConditions: the concrete conditions. Being written.
@_exported import PKCore
