/* OrderGraph console: the page's one entry module (index.html loads it after uPlot's classic script). Its imports
 * run in this order, each module once: the words, the sign-in and overview, then the screens. */
import './dom.js';
import './i18n.js';
import './console.js';
import './message-view.js';
import './inbox.js';
import './counter.js';
import './orders.js';
import './agents.js';
