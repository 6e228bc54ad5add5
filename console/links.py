"""The role pages answer the links and the page the layers below declare (``cardroom.registry``): registered from
``ConsoleConfig.ready``, so that no layer below names a console URL or template."""

import compliance.links
import fees.links
import signage.links
from cardroom import links, responses
from cardroom.registry import Route, Template

ROUTES = {
    links.HOME: "console:home",
    links.ROOM: "console:compliance",
    links.SIGN_IN: "console:login",
    links.SIGN_OUT: "console:logout",
    links.SECOND_FACTOR: "console:second-factor",
    links.SECOND_FACTOR_ENROL: "console:second-factor-enrol",
    fees.links.VERSION: "console:compliance-version",
    fees.links.PUBLISH: "console:compliance-publish",
    fees.links.INTERPRETATIONS: "console:compliance-interpretations",
    fees.links.VARIANCE: "console:compliance-variance",
    compliance.links.FINDINGS: "console:compliance-findings",
    compliance.links.APPROVALS: "console:compliance-approvals",
    signage.links.OVERRIDE: "console:compliance-override",
}

ENTRIES = (*(Route(link, name) for link, name in ROUTES.items()), Template(responses.ERROR_PAGE, "console/error.html"))
