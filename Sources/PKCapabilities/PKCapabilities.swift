// PKCapabilities: ProcedureKit's capability model (a gated resource whose authorization status can be read and
// requested), the procedures that read and request it, the `AuthorizedFor` condition, and capabilities that are
// real on a Linux server or command-line tool: process privileges, file-system access, a web-service credential,
// host reachability and user consent on a terminal.
//
// Importing PKCapabilities also imports PKConditions and PKCore.
@_exported import PKConditions
