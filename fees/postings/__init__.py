"""What a table posts beside its schedule: the house-banked part of a posting request (``house_banked``). The
posting itself is ``fees.models.TablePosting``; posting it is signage's."""
