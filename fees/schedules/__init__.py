"""Fee schedules and their versions: drafts and their editing (``editing``), publication and interpretations
through the two-person review (``services``, workflows in ``reviews``, readings in ``interpretations``), which
versions a person sees (``selectors``), a version's history (``history``) and an option's printed label
(``option_label``). The seeded schedules are ``fees.seed``, where ``load_seed_data`` looks for each app's; which
version is in force is the models' rule (``fees.models.in_force``); how two versions differ is plain Python
(``fees.engine.diff``)."""
