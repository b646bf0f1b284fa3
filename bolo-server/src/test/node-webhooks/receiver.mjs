// A webhook receiver as an integrator writes one: it verifies each request with the Standard
// Webhooks reference library (npm standardwebhooks), answers 204 when the signature holds and 400
// when it does not, and prints one JSON line per request. It listens on a free loopback port,
// printed first, and exits after EXPECTED requests.
import fs from "node:fs";
import http from "node:http";
import { Webhook } from "standardwebhooks";

// The secret, or a file it is read from at each request (written once the device exists).
const secret = () =>
  process.env.WEBHOOK_SECRET ?? fs.readFileSync(process.env.WEBHOOK_SECRET_FILE, "utf8").trim();
const expected = Number(process.env.EXPECTED ?? "1");
let seen = 0;

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    let verdict;
    try {
      const event = new Webhook(secret()).verify(body, req.headers);
      verdict = {
        verified: true,
        type: event.type,
        id: req.headers["webhook-id"],
        job: event.data?.id,
        text: event.data?.result?.text,
      };
      res.writeHead(204).end();
    } catch (e) {
      verdict = { verified: false, reason: e.message };
      res.writeHead(400).end();
    }
    console.log(JSON.stringify(verdict));
    seen += 1;
    if (seen >= expected) {
      server.close();
    }
  });
});

server.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ port: server.address().port }));
});
