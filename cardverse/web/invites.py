"""Invites on the page: the QR code of a table's share link, drawn on the server as SVG.

The short table code itself is the server's (:mod:`cardverse.tabletalk.invites`); the table page
shows it with the link, the QR code (``/t/{table_id}/qr.svg``, made with ``segno``), the copy
button and, where the browser has one, the system share sheet (Web Share API).
"""

from __future__ import annotations

import io

import segno

from .i18n import N_, Translator

QR_TITLE = N_("QR code of the link to this table")


def qr_svg(link: str, t: Translator) -> str:
    """The QR code of ``link`` as an SVG document, titled in the person's language."""
    code = segno.make(link, error="m", micro=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=6,
        border=4,
        dark="#000",
        light="#fff",
        title=t.gettext(QR_TITLE),
        xmldecl=False,
    )
    return out.getvalue().decode("utf-8")
