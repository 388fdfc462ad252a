// "Cleared from memory after use" (issue 5): the zeros land on the secret's
// own bytes, checked through a pointer to them while their owner is still
// alive (so the test never reads freed memory). A shared QByteArray is the
// trap: writing through data() detaches and zeroes a fresh copy only.
#include "secretbytes.h"
#include "secretstore.h"

#include <QByteArray>
#include <QString>
#include <gtest/gtest.h>

using opsdeck::secrets::SecretBytes;
using opsdeck::secrets::SecretStore;

namespace {

// A buffer of its own (not a literal's raw data), like a secret read from a file.
QByteArray ownedSecret()
{
    const char text[] = "s3cret-value-4711";
    return QByteArray(text, qsizetype(sizeof text) - 1);
}

bool allZero(const char *bytes, qsizetype size)
{
    for (qsizetype i = 0; i < size; ++i)
        if (bytes[i] != 0)
            return false;
    return true;
}

bool allZero(const QChar *chars, qsizetype size)
{
    for (qsizetype i = 0; i < size; ++i)
        if (chars[i].unicode() != 0)
            return false;
    return true;
}

} // namespace

TEST(SecretBytes, OverwriteZeroesTheSecretsOwnBytesInPlace)
{
    const QByteArray source = ownedSecret();
    SecretBytes secret = SecretBytes::copyOf(source);
    const char *bytes = secret.constData();
    const qsizetype size = secret.size();
    ASSERT_EQ(size, source.size());
    ASSERT_FALSE(allZero(bytes, size));

    secret.overwrite();
    // Same memory, still owned by `secret`: zeroed where the secret was.
    EXPECT_EQ(secret.constData(), bytes);
    EXPECT_TRUE(allZero(bytes, size));
    secret.clear();
    EXPECT_TRUE(secret.isEmpty());
}

TEST(SecretBytes, CopyOfNeverSharesTheCallersBuffer)
{
    QByteArray source = ownedSecret();
    SecretBytes secret = SecretBytes::copyOf(source);
    EXPECT_NE(secret.constData(), source.constData());
    secret.overwrite();
    // The caller's bytes are the caller's: untouched, and still its to wipe.
    EXPECT_TRUE(source == ownedSecret());
    SecretStore::wipe(source);
}

TEST(SecretBytes, TakingTheOnlyReferenceMovesTheBufferAndZeroesItThere)
{
    QByteArray source = ownedSecret();
    const char *bytes = source.constData();
    const qsizetype size = source.size();

    SecretBytes secret = SecretBytes::take(source);
    EXPECT_TRUE(source.isEmpty());
    // No copy left behind: the holder has the very buffer...
    ASSERT_EQ(secret.constData(), bytes);
    // ...and zeroes it in place.
    secret.overwrite();
    EXPECT_TRUE(allZero(bytes, size));
}

TEST(SecretBytes, TakingASharedBufferCopiesItAndLeavesTheOtherOwnersBytes)
{
    QByteArray other = ownedSecret();
    QByteArray shared = other; // one buffer, two owners
    const char *otherBytes = other.constData();

    SecretBytes secret = SecretBytes::take(shared);
    EXPECT_TRUE(shared.isEmpty());
    EXPECT_NE(secret.constData(), otherBytes);
    const char *heldBytes = secret.constData();
    secret.overwrite();
    EXPECT_TRUE(allZero(heldBytes, secret.size()));
    // The other owner still uses its secret, and is now its only owner:
    // its wipe zeroes the bytes where they are.
    EXPECT_TRUE(other == ownedSecret());
    EXPECT_EQ(other.constData(), otherBytes);
    EXPECT_TRUE(SecretStore::overwrite(other));
    EXPECT_TRUE(allZero(otherBytes, other.size()));
}

TEST(SecretBytes, MovingHandsOverTheBufferWithoutACopy)
{
    SecretBytes first = SecretBytes::copyOf(ownedSecret());
    const char *bytes = first.constData();
    SecretBytes second = std::move(first);
    EXPECT_TRUE(
        first.isEmpty()); // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    EXPECT_EQ(second.constData(), bytes);
    EXPECT_TRUE(second.view() == QByteArrayView(ownedSecret()));
}

TEST(SecretStoreWipe, ASharedBufferIsLeftToItsLastOwnerWhoseWipeZeroesItInPlace)
{
    QByteArray last = ownedSecret();
    QByteArray earlier = last; // e.g. `kept = value`
    const char *bytes = last.constData();
    const qsizetype size = last.size();

    // Zeroing through earlier.data() would detach and zero a copy only.
    EXPECT_FALSE(SecretStore::overwrite(earlier));
    EXPECT_EQ(earlier.constData(), bytes); // not detached
    SecretStore::wipe(earlier);
    EXPECT_TRUE(earlier.isEmpty());
    EXPECT_TRUE(last == ownedSecret()); // the other owner's secret still works

    // The last owner's overwrite hits the bytes themselves.
    EXPECT_TRUE(SecretStore::overwrite(last));
    EXPECT_EQ(last.constData(), bytes);
    EXPECT_TRUE(allZero(bytes, size));
    SecretStore::wipe(last);
    EXPECT_TRUE(last.isEmpty());
}

TEST(SecretStoreWipe, RawDataThatIsNotOursIsNeverWrittenTo)
{
    const char text[] = "not-ours";
    QByteArray view = QByteArray::fromRawData(text, qsizetype(sizeof text) - 1);
    EXPECT_FALSE(SecretStore::overwrite(view));
    EXPECT_STREQ(text, "not-ours");
}

TEST(SecretStoreWipe, AQStringsCharactersAreZeroedInPlaceWhenItIsTheOnlyOwner)
{
    QString typed = QString::fromLatin1(ownedSecret());
    QString copy = typed;
    const QChar *chars = typed.constData();
    const qsizetype size = typed.size();

    EXPECT_FALSE(SecretStore::overwrite(copy));
    copy.clear();
    EXPECT_TRUE(SecretStore::overwrite(typed));
    EXPECT_EQ(typed.constData(), chars);
    EXPECT_TRUE(allZero(chars, size));
    SecretStore::wipe(typed);
    EXPECT_TRUE(typed.isEmpty());
}
