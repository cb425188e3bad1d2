//! Authorization for MCP servers (resource servers): bearer-token validation and the
//! Protected Resource Metadata document.
