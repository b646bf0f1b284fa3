// The dashboard's jobs panel: jobs by status, the newest jobs of every device with their age, and
// the webhook events no receiver took, each with "Send again" (/admin/api/jobs, docs/admin-api.md).
// Its own module: admin.js hands it the API call and the status line. Data goes into the page as
// text, never as markup; no transcript or audio is ever shown.

const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

const $ = (id) => document.getElementById(id);

// "42 s", "7 min", "3 h", "2 d": how long ago, at a glance.
export function age(iso, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) {
    return seconds + ' s';
  }
  if (seconds < 3600) {
    return Math.floor(seconds / 60) + ' min';
  }
  if (seconds < 86400) {
    return Math.floor(seconds / 3600) + ' h';
  }
  return Math.floor(seconds / 86400) + ' d';
}

function row(tbody, cells) {
  const tr = document.createElement('tr');
  const headings = [...tbody.parentElement.tHead.rows[0].cells].map((th) => th.textContent);
  cells.forEach((content, i) => {
    const td = document.createElement(i === 0 ? 'th' : 'td');
    if (i === 0) {
      td.scope = 'row';
    }
    if (content instanceof Node) {
      td.appendChild(content);
    } else {
      td.textContent = content;
    }
    td.dataset.label = headings[i];
    tr.appendChild(td);
  });
  return tr;
}

// api(path, options) is admin.js's authenticated call; say(message, isError) its status line.
export function jobsPanel(api, say) {
  async function sendAgain(id) {
    try {
      await api('webhooks/' + encodeURIComponent(id) + '/send-again', { method: 'POST' });
      say('Webhook ' + id + ' queued again; it keeps its webhook-id.');
    } catch (e) {
      say(e.message, true);
    }
    await load();
  }

  async function load() {
    const jobs = await api('jobs');
    const now = Date.now();
    const counts = $('job-counts');
    counts.replaceChildren(...STATUSES.flatMap((status) => {
      const dt = document.createElement('dt');
      dt.textContent = status;
      const dd = document.createElement('dd');
      dd.id = 'job-count-' + status;
      dd.textContent = String(jobs.counts[status] ?? 0);
      return [dt, dd];
    }));
    $('job-queue-age').textContent = jobs.oldest_queued_seconds > 0
      ? 'The oldest queued job has waited ' + Math.round(jobs.oldest_queued_seconds) + ' s.'
      : 'No job is waiting.';

    const recent = $('jobs').tBodies[0];
    recent.replaceChildren(...jobs.recent.map((job) => row(recent, [
      job.id,
      job.device,
      job.status + (job.error_code ? ' (' + job.error_code + ')' : ''),
      age(job.created_at, now),
      job.duration_ms === null ? '—' : (Math.round(job.duration_ms / 100) / 10) + ' s',
      String(job.attempts),
    ])));
    $('jobs-empty').hidden = jobs.recent.length > 0;

    const failed = $('failed-webhooks').tBodies[0];
    failed.replaceChildren(...jobs.failed_webhooks.map((event) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'send-again';
      button.textContent = 'Send again';
      button.addEventListener('click', () => {
        button.disabled = true;
        sendAgain(event.id);
      });
      return row(failed, [
        event.id,
        event.job_id,
        event.device,
        event.url,
        String(event.attempts),
        (event.last_status ? 'HTTP ' + event.last_status + ': ' : '') + (event.last_detail || ''),
        button,
      ]);
    }));
    $('failed-webhooks-empty').hidden = jobs.failed_webhooks.length > 0;
  }

  return { load };
}
