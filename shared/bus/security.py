"""The Kafka trust boundary on the client side: TLS and SASL options for every aiokafka client.

``client_options`` turns ``KafkaSettings`` into the keyword arguments aiokafka's producer,
consumers and admin client take (``security_protocol``, ``sasl_mechanism``, the PLAIN/SCRAM
credentials and an ``ssl_context``), so no client is ever built without them. Settings that
cannot work together are refused in one line naming the variables.
"""

from __future__ import annotations

from typing import Any

from shared.config import KafkaSettings
from shared.errors import UserError


def client_options(settings: KafkaSettings) -> dict[str, Any]:
    """Keyword arguments for any aiokafka client (producer, consumer, admin)."""
    protocol = settings.security_protocol
    options: dict[str, Any] = {"security_protocol": protocol}
    if protocol.startswith("SASL_"):
        if not settings.sasl_mechanism:
            raise UserError(f"SHOAL_SECURITY_PROTOCOL={protocol} needs SHOAL_SASL_MECHANISM")
        if not settings.sasl_username or not settings.sasl_password:
            raise UserError(
                f"SHOAL_SASL_MECHANISM={settings.sasl_mechanism} needs SHOAL_SASL_USERNAME "
                "and SHOAL_SASL_PASSWORD"
            )
        options.update(
            sasl_mechanism=settings.sasl_mechanism,
            sasl_plain_username=settings.sasl_username,
            sasl_plain_password=settings.sasl_password,
        )
    if protocol in ("SSL", "SASL_SSL"):
        options["ssl_context"] = _ssl_context(settings)
    elif settings.ssl_cafile or settings.ssl_certfile:
        raise UserError(
            f"SHOAL_SSL_CAFILE/SHOAL_SSL_CERTFILE need SHOAL_SECURITY_PROTOCOL=SSL or SASL_SSL "
            f"(it is {protocol})"
        )
    return options


def _ssl_context(settings: KafkaSettings) -> Any:
    from aiokafka.helpers import create_ssl_context

    if bool(settings.ssl_certfile) != bool(settings.ssl_keyfile):
        raise UserError("SHOAL_SSL_CERTFILE and SHOAL_SSL_KEYFILE go together (mutual TLS)")
    try:
        context = create_ssl_context(
            cafile=settings.ssl_cafile or None,
            certfile=settings.ssl_certfile or None,
            keyfile=settings.ssl_keyfile or None,
        )
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot load the Kafka TLS files: {exc}") from None
    context.check_hostname = settings.ssl_check_hostname
    return context
