// The line listen-on-loopback.ts (a preload for third-party servers) writes on stderr with the port
// a server really got. Its own module: importing listen-on-loopback.js for the constant would patch
// net.Server.prototype.listen in the test process too (every listen(port) there rebound to port 0).
export const PORT_LINE_PREFIX = 'MCP_TASKS_TEST_LISTENING=';
