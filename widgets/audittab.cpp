#include "audittab.h"

#include "auditexport.h"
#include "auditlog.h"
#include "audittablemodel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using opsdeck::history::AuditExport;
using opsdeck::history::AuditTableModel;

AuditTab::AuditTab(QWidget *parent)
    : QWidget(parent), m_model(new AuditTableModel(this)), m_filter(new QLineEdit),
      m_kind(new QComboBox), m_since(new QLineEdit), m_table(new QTableView), m_status(new QLabel),
      m_reload(new QPushButton(u"Reload"_s)), m_json(new QPushButton(u"Export JSON…"_s)),
      m_markdown(new QPushButton(u"Export Markdown…"_s))
{
    m_filter->setPlaceholderText(u"filter: host, action, workflow id, text …"_s);
    m_filter->setClearButtonEnabled(true);
    m_since->setPlaceholderText(u"since: 30m, 2h, 1d or 2026-12-03T09:00"_s);
    m_since->setClearButtonEnabled(true);
    m_kind->addItem(u"every kind"_s, QString());
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Every column but the detail as wide as its text (the first 1000 rows).
    for (int column = 0; column < AuditTableModel::Detail; ++column)
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_table->setAlternatingRowColors(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 3);
    bar->addWidget(m_kind);
    bar->addWidget(m_since, 2);
    bar->addWidget(m_reload);
    bar->addWidget(m_json);
    bar->addWidget(m_markdown);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_model->setTextFilter(text);
        showCount();
    });
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this] {
        m_model->setKindFilter(m_kind->currentData().toString());
        showCount();
    });
    connect(m_since, &QLineEdit::editingFinished, this, &AuditTab::applySince);
    connect(m_reload, &QPushButton::clicked, this, &AuditTab::reload);
    connect(m_json, &QPushButton::clicked, this, [this] { exportAs(false); });
    connect(m_markdown, &QPushButton::clicked, this, [this] { exportAs(true); });
}

void AuditTab::setLogPath(const QString &path)
{
    m_path = path;
    reload();
}

void AuditTab::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    reload();
}

void AuditTab::reload()
{
    if (m_path.isEmpty()) {
        m_model->setEntries({});
        m_status->setText(u"No audit log yet: open an inventory."_s);
        return;
    }
    QStringList problems;
    // Reading lists the entries; `opsdeck-cli audit --verify` checks the chain.
    const opsdeck::history::AuditLog log(m_path);
    m_model->setEntries(log.read(&problems));
    const QString kind = m_kind->currentData().toString();
    m_kind->blockSignals(true);
    while (m_kind->count() > 1)
        m_kind->removeItem(1);
    for (const QString &k : m_model->kinds())
        m_kind->addItem(k, k);
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(kind)));
    m_kind->blockSignals(false);
    m_model->setKindFilter(m_kind->currentData().toString());
    showCount();
    if (!problems.isEmpty())
        m_status->setText(m_status->text() + u" — "_s + problems.join(u"; "_s));
}

void AuditTab::applySince()
{
    const QString text = m_since->text().trimmed();
    const auto since = text.isEmpty() ? std::nullopt : AuditExport::sinceTime(text);
    if (!text.isEmpty() && !since) {
        m_status->setText(
            u"bad since '%1': ISO 8601 (2026-12-03T09:00) or how long ago (30m, 2h, 1d)"_s.arg(
                text));
        return;
    }
    m_model->setSince(since);
    showCount();
}

void AuditTab::showCount()
{
    m_status->setText(u"%1 of %2 entries in %3 · `opsdeck-cli audit --verify` checks the chain"_s
                          .arg(m_model->rowCount())
                          .arg(m_model->totalCount())
                          .arg(m_path));
}

bool AuditTab::exportTo(const QString &path, bool markdown, QString *error) const
{
    const auto entries = m_model->shown();
    const QByteArray bytes =
        markdown ? AuditExport::markdown(entries, m_path).toUtf8()
                 : QJsonDocument(AuditExport::json(entries)).toJson(QJsonDocument::Indented);
    // Whole or not at all: an export is never half-written.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = u"cannot write %1: %2"_s.arg(path, file.errorString());
        return false;
    }
    return true;
}

void AuditTab::exportAs(bool markdown)
{
    auto *dialog = new QFileDialog(this, markdown ? u"Export as Markdown"_s : u"Export as JSON"_s);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->selectFile(markdown ? u"audit.md"_s : u"audit.json"_s);
    connect(dialog, &QFileDialog::fileSelected, this, [this, markdown](const QString &path) {
        QString error;
        m_status->setText(exportTo(path, markdown, &error)
                              ? u"%1 entries written to %2"_s.arg(m_model->rowCount()).arg(path)
                              : error);
    });
    dialog->open();
}
