// The S3 server of tests/cli/remote-s3.sh: npm's @20minutes/s3rver (it
// verifies SigV4 signatures and answers a wrong secret with 403; its
// account is S3RVER / S3RVER), on 127.0.0.1, bucket "bk".
//   node s3server.cjs DATADIR PORTFILE KEY=FILE...
// Puts each FILE at KEY (anonymous PUTs, which s3rver takes), then writes
// the port to PORTFILE and serves until killed.
'use strict';
const fs = require('fs');
const http = require('http');
const S3rver = require('@20minutes/s3rver');

function put(port, key, file) {
  const body = fs.readFileSync(file);
  const path = '/bk/' + key.split('/').map(encodeURIComponent).join('/');
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'PUT', path,
      headers: { 'Content-Length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(key + ': ' + res.statusCode))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const [dir, portfile, ...uploads] = process.argv.slice(2);
  const srv = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir,
    configureBuckets: [{ name: 'bk' }] });
  const { port } = await srv.run();
  for (const u of uploads) {
    const eq = u.indexOf('=');
    await put(port, u.slice(0, eq), u.slice(eq + 1));
  }
  fs.writeFileSync(portfile + '.tmp', port + '\n');
  fs.renameSync(portfile + '.tmp', portfile);
}
main().catch((e) => { console.error(e.message); process.exit(1); });
