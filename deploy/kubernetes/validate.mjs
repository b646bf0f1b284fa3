// Validates the manifests in this folder without a cluster; run through ./validate, which installs
// the three packages imported here. Three layers:
//   1. YAML as Kubernetes reads it (YAML 1.1, so an unquoted `off` is a boolean), no duplicate keys;
//   2. every object against the Kubernetes OpenAPI schema (kubernetes-models: types, formats, enums,
//      required fields), and every field name against the same API's models (@kubernetes/client-node),
//      which catches a misspelt field that the schema alone lets through;
//   3. what no schema knows: references between the objects, the ingress-nginx annotations as the
//      controller validates them, and the numbers Bolo's own code and docs tie together.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseAllDocuments } from 'yaml';
import * as models from '@kubernetes/client-node/dist/gen/models/all.js';

let passed = 0;
let failed = 0;
function report(name, problems) {
  if (problems.length === 0) {
    passed++;
    console.log(`ok    ${name}`);
  } else {
    failed++;
    console.log(`FAIL  ${name}`);
    for (const p of problems) console.log(`        ${p}`);
  }
}

// --- 1. YAML ---------------------------------------------------------------------------------
const objects = [];
for (const file of process.argv.slice(2)) {
  const problems = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1', uniqueKeys: true })) {
    for (const e of [...doc.errors, ...doc.warnings]) problems.push(e.message);
    const obj = doc.toJS();
    if (obj != null) objects.push({ file: basename(file), obj });
  }
  report(`${basename(file)}: YAML`, problems);
}

// --- 2. Schema and field names ---------------------------------------------------------------
function unknownFields(value, type, path, out) {
  let m;
  if (value == null) return;
  if ((m = /^Array<(.+)>$/.exec(type))) {
    if (Array.isArray(value)) value.forEach((v, i) => unknownFields(v, m[1], `${path}[${i}]`, out));
    return;
  }
  if ((m = /^\{ \[key: string\]: (.+); \}$/.exec(type))) {
    for (const [k, v] of Object.entries(value)) unknownFields(v, m[1], `${path}.${k}`, out);
    return;
  }
  const model = models[type];
  if (!model?.getAttributeTypeMap || typeof value !== 'object' || Array.isArray(value)) return;
  const fields = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [k, v] of Object.entries(value)) {
    if (!fields.has(k)) out.push(`${path}.${k}: unknown field (${type} has no such field)`);
    else unknownFields(v, fields.get(k), `${path}.${k}`, out);
  }
}

for (const { file, obj } of objects) {
  const { apiVersion, kind } = obj;
  const problems = [];
  try {
    const Model = (await import(`kubernetes-models/${apiVersion}/${kind}`))[kind];
    new Model(obj).validate();
  } catch (e) {
    if (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') {
      problems.push(`no schema for ${apiVersion} ${kind}`);
    } else {
      for (const x of e.errors ?? [{ instancePath: '', message: e.message }]) {
        const allowed = x.params?.allowedValues ? `: ${x.params.allowedValues.join(', ')}` : '';
        problems.push(`${x.instancePath || '/'} ${x.message}${allowed}`);
      }
    }
  }
  const version = apiVersion.split('/').pop();
  const type = version[0].toUpperCase() + version.slice(1) + kind;
  if (models[type]) unknownFields(obj, type, kind, problems);
  else problems.push(`no field list for ${type}`);
  report(`${file}: ${apiVersion} ${kind} ${obj.metadata?.name}`, problems);
}

// --- 3. What no schema knows -----------------------------------------------------------------
const all = (kind) => objects.filter((o) => o.obj.kind === kind).map((o) => o.obj);
const named = (kind, name) => all(kind).find((o) => o.metadata.name === name);
const matches = (selector, labels) => {
  const pairs = Object.entries(selector ?? {});
  return pairs.length > 0 && pairs.every(([k, v]) => labels?.[k] === v);
};
function seconds(text) {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(String(text).trim());
  if (!m) throw new Error(`cannot read the duration ${text}`);
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }[m[2]];
}
function bytes(quantity) {
  const m = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(quantity));
  if (!m) throw new Error(`cannot read the quantity ${quantity}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(m[1]) * (unit[m[2]] ?? 1);
}
function check(name, body) {
  const problems = [];
  try {
    body((p) => problems.push(p));
  } catch (e) {
    problems.push(e.message);
  }
  report(name, problems);
}

const namespace = all('Namespace')[0]?.metadata.name;
check('every object is in the namespace', (fail) => {
  for (const { obj } of objects) {
    if (obj.kind !== 'Namespace' && obj.metadata.namespace !== namespace) {
      fail(`${obj.kind} ${obj.metadata.name} is in ${obj.metadata.namespace}, not ${namespace}`);
    }
  }
});

for (const deployment of all('Deployment')) {
  const pod = deployment.spec.template.spec;
  const labels = deployment.spec.template.metadata.labels;
  const container = pod.containers[0];
  const config = Object.assign(
    {},
    ...(container.envFrom ?? []).map((e) => named('ConfigMap', e.configMapRef?.name)?.data ?? {}),
    Object.fromEntries((container.env ?? []).filter((e) => 'value' in e).map((e) => [e.name, e.value])),
  );
  const mountOf = (path) =>
    (container.volumeMounts ?? [])
      .filter((m) => path === m.mountPath || path.startsWith(m.mountPath + '/'))
      .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  const volume = (name) => pod.volumes.find((v) => v.name === name);
  const name = `Deployment ${deployment.metadata.name}`;

  check(`${name}: its selector, ConfigMaps, Secrets and ports exist`, (fail) => {
    if (!matches(deployment.spec.selector.matchLabels, labels)) fail('selector does not match the pod labels');
    for (const e of container.envFrom ?? []) {
      if (e.configMapRef && !named('ConfigMap', e.configMapRef.name)) fail(`no ConfigMap ${e.configMapRef.name}`);
    }
    for (const v of pod.volumes) {
      if (v.secret && !named('Secret', v.secret.secretName)) fail(`no Secret ${v.secret.secretName}`);
    }
    const ports = (container.ports ?? []).map((p) => p.name);
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const port = container[probe]?.httpGet?.port;
      if (port !== undefined && !ports.includes(port)) fail(`${probe} uses port ${port}, not a container port`);
    }
    const port = Number(config.BOLO_PORT ?? 8080);
    if (!container.ports.some((p) => p.containerPort === port)) fail(`no container port ${port} (BOLO_PORT)`);
    if (config.BOLO_HOST && config.BOLO_HOST !== '0.0.0.0') {
      fail(`BOLO_HOST=${config.BOLO_HOST}: the probes and the Services cannot reach it`);
    }
  });

  check(`${name}: probes ask Bolo's endpoints`, (fail) => {
    const path = (probe) => container[probe]?.httpGet?.path;
    if (path('readinessProbe') !== '/readyz') fail('readinessProbe must ask /readyz (503 while draining)');
    if (path('livenessProbe') !== '/healthz') fail('livenessProbe must ask /healthz');
    if (container.startupProbe && path('startupProbe') !== '/healthz') fail('startupProbe must ask /healthz');
  });

  check(`${name}: every BOLO_*_FILE is a key of a mounted Secret`, (fail) => {
    for (const [variable, path] of Object.entries(config)) {
      if (!/^BOLO_.*_FILE$/.test(variable)) continue;
      const mount = mountOf(path);
      const secret = mount && volume(mount.name)?.secret;
      if (!secret) {
        fail(`${variable}=${path} is not under a mounted Secret`);
        continue;
      }
      const key = path.slice(mount.mountPath.length + 1);
      const object = named('Secret', secret.secretName);
      if (!(key in (object?.stringData ?? {})) && !(key in (object?.data ?? {}))) {
        fail(`${variable}: Secret ${secret.secretName} has no key ${key}`);
      }
      if (config[variable.replace(/_FILE$/, '')]) fail(`${variable} and its variable are both set`);
    }
  });

  check(`${name}: the data directory is writable, private and large enough for the spool`, (fail) => {
    const dataDir = config.BOLO_DATA_DIR;
    if (!dataDir) return fail('BOLO_DATA_DIR is not set');
    const mount = mountOf(dataDir);
    const source = mount && volume(mount.name);
    if (!source?.emptyDir && !source?.persistentVolumeClaim) return fail(`${dataDir} is not on a volume`);
    if (mount.readOnly) fail(`${dataDir} is mounted read-only`);
    if (dataDir === mount.mountPath) {
      fail(`BOLO_DATA_DIR is the mount point ${dataDir}, owned by root: Bolo cannot make it 0700`);
    }
    const spool = Number(config.BOLO_SPOOL_MAX_BYTES ?? 4294967296);
    const limit = source.emptyDir?.sizeLimit;
    if (source.emptyDir && !limit) fail('the data emptyDir has no sizeLimit');
    if (limit && bytes(limit) <= spool) fail(`sizeLimit ${limit} is not above BOLO_SPOOL_MAX_BYTES ${spool}`);
    const security = container.securityContext ?? {};
    if (security.readOnlyRootFilesystem && !mountOf('/tmp/x')) fail('a read-only root needs /tmp mounted');
  });

  check(`${name}: the grace period outlasts preStop, the drain and the close`, (fail) => {
    // App.drain(BOLO_DRAIN_TIMEOUT), then App.close(): threads leaving their routes 1 s, detached
    // engine work 5 s, the answers of that work 1 s, charges 1 s, the usage roll-up 5 s.
    const close = 13;
    const drain = seconds(config.BOLO_DRAIN_TIMEOUT ?? '30s');
    const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    if (grace < preStop + drain + close) {
      fail(`terminationGracePeriodSeconds ${grace} < preStop ${preStop} + drain ${drain} + close ${close}`);
    }
  });

  check(`${name}: no Service link puts BOLO_* variables into the pods`, (fail) => {
    const envName = (s) => s.metadata.name.toUpperCase().replace(/-/g, '_');
    const linked = all('Service').filter((s) => /^BOLO(_|$)/.test(envName(s)));
    if (linked.length > 0 && pod.enableServiceLinks !== false) {
      fail(`Service ${linked[0].metadata.name} would set BOLO_PORT=tcp://…; set enableServiceLinks: false`);
    }
  });

  for (const service of all('Service')) {
    check(`Service ${service.metadata.name}: selects the pods and a container port`, (fail) => {
      if (!matches(service.spec.selector, labels)) fail('selector matches no pod of the Deployment');
      for (const p of service.spec.ports) {
        const ok = container.ports.some((c) => c.name === p.targetPort || c.containerPort === p.targetPort);
        if (!ok) fail(`targetPort ${p.targetPort} is not a container port`);
      }
    });
  }
  for (const pdb of all('PodDisruptionBudget')) {
    check(`PodDisruptionBudget ${pdb.metadata.name}: selects the pods`, (fail) => {
      if (!matches(pdb.spec.selector.matchLabels, labels)) fail('selector matches no pod of the Deployment');
    });
  }
}

// ingress-nginx (v1.15) refuses a whole Ingress whose annotation fails these checks.
const ANNOTATIONS = {
  'load-balance': /^(round_robin|chash|chashsubset|sticky_balanced|sticky_persistent|ewma)$/,
  'proxy-body-size': /^\d+[bkmg]?$/i,
  'proxy-request-buffering': /^(on|off)$/,
  'proxy-read-timeout': /^\d+$/,
  'proxy-send-timeout': /^\d+$/,
  'proxy-next-upstream':
    /^((error|timeout|invalid_header|http_500|http_502|http_503|http_504|http_403|http_404|http_429|non_idempotent|off)\s?)+$/,
  'upstream-hash-by': /^[A-Za-z0-9\-_${}]*$/,
  canary: /^(true|false)$/,
  'canary-by-header': /^[/\-._~a-zA-Z0-9:]*$/,
  'canary-by-header-pattern': /^[/\-._~a-zA-Z0-9:^$[\](){}*+?|&=\\]*$/,
};
const PREFIX = 'nginx.ingress.kubernetes.io/';
const ingresses = all('Ingress');
const note = (ing, key) => ing.metadata.annotations?.[PREFIX + key];
const routes = ingresses.flatMap((ing) =>
  ing.spec.rules.flatMap((rule) =>
    rule.http.paths.map((p) => ({
      ing,
      host: rule.host,
      path: p.path,
      type: p.pathType,
      service: p.backend.service.name,
    })),
  ),
);

check('Ingress annotations are ones ingress-nginx accepts', (fail) => {
  for (const ing of ingresses) {
    for (const [key, value] of Object.entries(ing.metadata.annotations ?? {})) {
      if (!key.startsWith(PREFIX)) continue;
      const rule = ANNOTATIONS[key.slice(PREFIX.length)];
      if (!rule) fail(`${ing.metadata.name}: ${key} is not one this setup knows`);
      else if (!rule.test(value)) fail(`${ing.metadata.name}: ${key}: "${value}" is refused`);
    }
    if (note(ing, 'canary-by-header-pattern')) new RegExp(note(ing, 'canary-by-header-pattern'));
  }
});

check('Ingress backends exist, and each Service has one hashing setting', (fail) => {
  const hashOf = new Map();
  for (const r of routes) {
    const service = named('Service', r.service);
    if (!service) fail(`${r.ing.metadata.name}: no Service ${r.service}`);
    const hash = note(r.ing, 'upstream-hash-by') ?? '';
    if (hashOf.has(r.service) && hashOf.get(r.service) !== hash) {
      fail(`Service ${r.service} is hashed differently by two Ingresses; the controller keeps one`);
    }
    hashOf.set(r.service, hash);
  }
  const hashed = [...hashOf].filter(([, h]) => h).map(([s]) => named('Service', s)).filter(Boolean);
  const shape = (s) => JSON.stringify([s.spec.selector, s.spec.ports.map((p) => p.targetPort)]);
  if (new Set(hashed.map(shape)).size > 1) fail('the hashing Services select different pods or ports');
});

check('canary Ingresses have a main route and a Service of their own', (fail) => {
  for (const r of routes.filter((x) => note(x.ing, 'canary') === 'true')) {
    const main = routes.filter((x) => note(x.ing, 'canary') !== 'true');
    if (!main.some((x) => x.host === r.host && x.path === r.path && x.type === r.type)) {
      fail(`${r.ing.metadata.name}: no main Ingress has ${r.type} ${r.path}; the controller drops the canary`);
    }
    if (main.some((x) => x.service === r.service)) {
      fail(`${r.ing.metadata.name}: Service ${r.service} is also a main backend; the canary would be ignored`);
    }
  }
});

check("resumable uploads are hashed on the device's token, as docs/nginx/bolo.conf does", (fail) => {
  const token = '$http_authorization';
  const uploads = routes.find((r) => r.path === '/v1/uploads' && r.type === 'Prefix');
  if (!uploads || note(uploads.ing, 'upstream-hash-by') !== token) {
    fail(`/v1/uploads is not hashed on ${token}`);
  }
  const draft = routes.find((r) => r.path === '/v1/transcriptions' && note(r.ing, 'canary') === 'true');
  if (!draft) return fail('no route takes the IETF draft creation (Upload-Draft-Interop-Version)');
  if (note(draft.ing, 'canary-by-header')?.toLowerCase() !== 'upload-draft-interop-version') {
    fail('the draft route does not follow Upload-Draft-Interop-Version');
  }
  if (note(draft.ing, 'upstream-hash-by') !== token) fail(`the draft route is not hashed on ${token}`);
  const plain = routes.find((r) => r.path === '/' && note(r.ing, 'canary') !== 'true');
  if (!plain || note(plain.ing, 'upstream-hash-by')) fail('plain requests should not be hashed');
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
