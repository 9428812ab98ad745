/* OrderGraph console: the agent's approved templates once a conversation's WhatsApp window is closed (§6.1 send):
 * the inbox's composer offers them instead of the reply box, with a field per body placeholder. */
import type { Conversation, Result } from './api-types.js';
import { api, inbox, newKey, showError } from './console.js';
import { $, fill, h } from './dom.js';
import { n, t } from './i18n.js';

type Template = Result<'AiTemplates'>[number];
/** What a template's components are read for: its BODY's text. */
type Component = { type?: unknown; text?: string };

/** The conversation whose templates are drawn (the values typed stay while it is), and the templates by agent. */
let shownFor: number | null = null;
let byAgent = new Map<number, Template[]>();

function placeholders(template: Template): { text: string; count: number } {
  const components = (Array.isArray(template.components) ? template.components : []) as Component[];
  const body = components.filter(function (x) {
    return String(x.type).toUpperCase() === 'BODY';
  })[0];
  const found = (body && body.text ? body.text : '').match(/\{\{\s*\d+\s*\}\}/g) || [];
  const numbers = new Set(
    found.map(function (x: string) {
      return x.replace(/\D/g, '');
    }),
  );
  return { text: (body && body.text) || '', count: numbers.size };
}
/** The open conversation's templates (the inbox calls it while its window is closed), drawn once per opening. */
export function loadTemplates(c: Conversation): void {
  if (shownFor === c.id) return; // drawn already: the values typed stay
  const cached = byAgent.get(c.agent_id);
  if (cached && cached.length) {
    shownFor = c.id;
    return renderTemplates(cached);
  }
  byAgent.set(c.agent_id, []);
  api<Template[]>('/ai/agents/' + c.agent_id + '/templates', { status: 'APPROVED' }).then(function (list) {
    byAgent.set(c.agent_id, list);
    const now = inbox().selected();
    if (now && now.agent_id === c.agent_id) {
      shownFor = now.id;
      renderTemplates(list);
    }
  }, showError);
}
/** Another conversation is opened: its templates are drawn anew. */
export function resetTemplates(): void {
  shownFor = null;
}
/** Signed out: the agents' templates are forgotten. */
export function forgetTemplates(): void {
  shownFor = null;
  byAgent = new Map();
}
function renderTemplates(list: Template[]): void {
  const select = $<HTMLSelectElement>('template-pick');
  const before = select.value;
  fill(
    select,
    list.map(function (tp) {
      return h('option', { value: tp.id }, tp.name + ' (' + tp.language + ')');
    }),
  );
  if (before) select.value = before;
  select.disabled = !list.length;
  ($('templates').querySelector('button[type="submit"]') as HTMLButtonElement).disabled = !list.length;
  $('template-hint').textContent = list.length ? $('template-hint').textContent : t('no_templates');
  renderTemplateParams();
}
function chosenTemplate(): Template | undefined {
  const c = inbox().selected();
  const list = (c && byAgent.get(c.agent_id)) || [];
  const id = Number($<HTMLSelectElement>('template-pick').value);
  return list.filter(function (x) {
    return x.id === id;
  })[0];
}
function renderTemplateParams(): void {
  const tp = chosenTemplate();
  const p = tp ? placeholders(tp) : { text: '', count: 0 };
  $('template-preview').textContent = p.text;
  const inputs = [];
  for (let i = 1; i <= p.count; i++) {
    inputs.push(
      h('label', { for: 'template-param-' + i }, t('template_param', { n: n(i) })),
      h('input', { id: 'template-param-' + i, class: 'template-param', dir: 'auto', maxlength: 1024, required: true }),
    );
  }
  fill($('template-params'), inputs);
}
$<HTMLSelectElement>('template-pick').addEventListener('change', renderTemplateParams);
$('templates').addEventListener('submit', function (e) {
  e.preventDefault();
  const c = inbox().selected();
  const tp = chosenTemplate();
  if (!c || !tp) return;
  const values = Array.prototype.map.call(document.querySelectorAll('.template-param'), function (x: HTMLInputElement) {
    return x.value.trim();
  });
  const button = $('templates').querySelector('button[type="submit"]') as HTMLButtonElement;
  button.disabled = true;
  $('template-error').textContent = '';
  void api<Result<'SendAiTemplate'>>('/ai/agents/' + c.agent_id + '/templates/' + tp.id + '/send', null, {
    body: { to: c.contact, body_parameters: values },
    headers: { 'Idempotency-Key': newKey() },
  })
    .then(
      function (r) {
        $('template-hint').textContent = t('template_sent', { name: r.template, to: r.to });
        // sent: its values were this customer's, not the next one's
        document.querySelectorAll<HTMLInputElement>('.template-param').forEach(function (x) {
          x.value = '';
        });
      },
      function (err: Error) {
        $('template-error').textContent = t('not_sent', { reason: err.message });
      },
    )
    .then(function () {
      button.disabled = false;
    });
});
