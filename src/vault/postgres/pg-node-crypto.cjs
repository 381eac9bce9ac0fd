// pg's crypto helpers (node_modules/pg/lib/crypto/utils.js: the same exports, the same results),
// computed with node:crypto instead of Web Crypto, for the bundled driver (scripts/build.mjs swaps
// it in). A team store that asks for SCRAM-SHA-256 runs them at every connection's start, and on
// Node the Web Crypto path loaded its internals there (6 to 9 ms of the main thread on a 2-core
// machine) and sent each HMAC and digest through the thread pool, a turn of the event loop each.
// Here the digests and HMACs run at once; PBKDF2 stays on the thread pool.
'use strict'
const nodeCrypto = require('crypto')

module.exports = {
  postgresMd5PasswordHash,
  randomBytes,
  deriveKey,
  sha256,
  hashByName,
  hmacSha256,
  md5,
}

function randomBytes(length) {
  return nodeCrypto.randomBytes(length)
}

async function md5(string) {
  return nodeCrypto.createHash('md5').update(string, 'utf-8').digest('hex')
}

async function postgresMd5PasswordHash(user, password, salt) {
  const inner = await md5(password + user)
  const outer = await md5(Buffer.concat([Buffer.from(inner), salt]))
  return 'md5' + outer
}

async function sha256(data) {
  return nodeCrypto.createHash('sha256').update(data).digest()
}

/** A Web Crypto hash name (`SHA-256`, `SHA512-256`) as node:crypto names it (`sha256`, `sha512-256`). */
async function hashByName(hashName, data) {
  return nodeCrypto.createHash(hashName.toLowerCase().replace(/^sha-/, 'sha')).update(data).digest()
}

async function hmacSha256(key, msg) {
  return nodeCrypto.createHmac('sha256', Buffer.from(key)).update(msg, 'utf8').digest()
}

function deriveKey(password, salt, iterations) {
  return new Promise((resolve, reject) => {
    nodeCrypto.pbkdf2(password, salt, iterations, 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key)))
  })
}
