# The kinds of job come from the apps that own them (cardroom.registry.JobKind): the values rows keep are unchanged,
# so only the choices' source changes (no SQL).

import cardroom.models.jobs
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cardroom', '0016_witness_cosignatures'),
    ]

    operations = [
        migrations.AlterField(
            model_name='job',
            name='kind',
            field=models.CharField(choices=cardroom.models.jobs.kinds, max_length=20),
        ),
    ]
