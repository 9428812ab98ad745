/* OrderGraph console: the page's one entry module (index.html loads it after uPlot's classic script). Its imports
 * run in this order, each module once: the words, the sign-in and overview, then the screens. */
import { og } from './console.js';
import { n, t } from './i18n.js';
import './message-view.js';
import './inbox.js';
import './counter.js';
import './orders.js';
import './agents.js';

// For the browser tests only (no module reads these): the charts, the Orders page's hooks, a word and a number in
// the page's language. The modules share nothing through window.
Object.assign(window, { OrderGraphConsole: og, OrderGraphI18n: { t, n } });
