/** The harness's and the tests' private Redis servers: loopback only, nothing kept on disk. */
/** redis-server's arguments for one on `port`. */
export const redisServerArgs = (port: number) => [
  "--port",
  String(port),
  "--bind",
  "127.0.0.1",
  "--save",
  "",
  "--appendonly",
  "no",
];
